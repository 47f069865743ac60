import type { EntityManager } from 'typeorm';
import { newId } from '../../ids';
import { emitEvents, type EventType, type ListingEventData } from '../events/outbox';
import { noticeOpenOffers, type OfferChangeStarts } from '../offers/offer-rows';
import type { ListingInput } from './listing-input';
import { isValidListing } from './validity';

/**
 * The catalog text of each known URN (name, title, number, set, series, game), for the
 * denormalised `listings.search_text`. Absent URNs are not in the catalog.
 */
async function catalogText(tx: EntityManager, urns: string[]): Promise<Map<string, string>> {
  const rows: Array<{ urn: string; text: string }> = await tx.query(
    `SELECT i.urn, concat_ws(' ', i.name, i.title, i.number, i.rarity, s.name, sr.name, g.name) AS text
       FROM catalog_items i
       JOIN catalog_sets s ON s.urn = i.set_urn
       JOIN catalog_series sr ON sr.urn = i.series_urn
       JOIN catalog_games g ON g.urn = i.game_urn
      WHERE i.urn = ANY($1::text[])`,
    [[...new Set(urns)]],
  );
  return new Map(rows.map((r) => [r.urn, r.text]));
}

/** Column values derived from an input: validity and the search text. */
function derived(input: ListingInput, itemText: string | undefined) {
  return {
    valid: isValidListing(input, itemText !== undefined),
    search_text: [itemText ?? input.urn, input.notes, input.reference, input.comment].filter(Boolean).join(' ').toLowerCase(),
  };
}

const columns = (input: ListingInput) => ({
  item_urn: input.urn,
  condition: input.condition,
  language: input.language,
  price: input.price,
  quantity: input.quantity,
  comment: input.comment,
  grading_provider: input.gradingProvider,
  grading_score: input.gradingScore,
  grading_number: input.gradingNumber,
  notes: input.notes,
  reference: input.reference,
  variants: input.variants,
  hidden: input.hidden,
  offers_enabled: input.offers.enabled,
  offer_auto_accept_at: input.offers.autoAcceptAt,
  offer_auto_decline_below: input.offers.autoDeclineBelow,
});

export interface WrittenListing {
  id: string;
  item_urn: string;
  quantity: number;
  price: number;
  import_row: number | null;
}

/** The spec's event payload; `createdAt` is the time of the event. */
export const listingEvent = (sellerId: string, l: WrittenListing, at: Date): ListingEventData => ({
  sellerId,
  createdAt: at.toISOString(),
  urn: l.item_urn,
  listingId: l.id,
  quantity: l.quantity,
  price: l.price,
});

async function recordChange(tx: EntityManager, sellerId: string, type: EventType, written: WrittenListing[]): Promise<void> {
  if (written.length === 0) return;
  const at = new Date();
  await emitEvents(
    tx,
    type,
    written.map((l) => listingEvent(sellerId, l, at)),
  );
}

const RETURNING = 'RETURNING id, item_urn, quantity, price, import_row';

/**
 * Inserts listings in one statement and, in the same transaction, one `LISTING_CREATED` per
 * listing actually inserted; returns them in input order. With an import row number per input, a row already imported
 * (a retried batch) is skipped: it is neither inserted nor announced again.
 */
export async function insertListings(
  tx: EntityManager,
  sellerId: string,
  inputs: Array<{ input: ListingInput; importRow?: number }>,
  importId: string | null = null,
): Promise<WrittenListing[]> {
  if (inputs.length === 0) return [];
  const texts = await catalogText(
    tx,
    inputs.map((i) => i.input.urn),
  );
  const rows = inputs.map(({ input, importRow }) => ({
    id: newId(),
    seller_id: sellerId,
    ...columns(input),
    ...derived(input, texts.get(input.urn)),
    import_id: importId,
    import_row: importRow ?? null,
  }));
  const inserted: WrittenListing[] = await tx.query(
    `INSERT INTO listings (id, seller_id, item_urn, condition, language, price, quantity, comment, grading_provider,
                           grading_score, grading_number, notes, reference, variants, hidden, valid, search_text,
                           import_id, import_row, offers_enabled, offer_auto_accept_at, offer_auto_decline_below)
     SELECT id, seller_id, item_urn, condition, language, price, quantity, comment, grading_provider, grading_score,
            grading_number, notes, reference, variants, hidden, valid, search_text, import_id, import_row,
            offers_enabled, offer_auto_accept_at, offer_auto_decline_below
       FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, seller_id uuid, item_urn text, condition text, language text,
            price int, quantity int, comment text, grading_provider text, grading_score text, grading_number text,
            notes text, reference text, variants jsonb, hidden boolean, valid boolean, search_text text,
            import_id uuid, import_row int, offers_enabled boolean, offer_auto_accept_at int, offer_auto_decline_below int)
     ON CONFLICT (import_id, import_row) WHERE import_id IS NOT NULL DO NOTHING
     ${RETURNING}`,
    [JSON.stringify(rows)],
  );
  // In input order (RETURNING promises none), without the rows an earlier run already imported.
  const byId = new Map(inserted.map((l) => [l.id, l]));
  const written = rows.map((r) => byId.get(r.id)).filter((l): l is WrittenListing => l !== undefined);
  await recordChange(tx, sellerId, 'LISTING_CREATED', written);
  return written;
}

/**
 * Replaces a listing's seller-editable fields (ownership in the WHERE) and emits
 * `LISTING_UPDATED`. Returns null when the caller has no such listing. A quantity below what
 * open checkouts hold violates `listings_reserved_within_quantity` (the caller maps it to 409).
 */
export async function replaceListing(
  tx: EntityManager,
  sellerId: string,
  id: string,
  input: ListingInput,
  offerChanges: OfferChangeStarts,
): Promise<WrittenListing | null> {
  const texts = await catalogText(tx, [input.urn]);
  const c = { ...columns(input), ...derived(input, texts.get(input.urn)) };
  const result: [WrittenListing[], number] = await tx.query(
    `UPDATE listings SET item_urn = $3, condition = $4, language = $5, price = $6, quantity = $7, comment = $8,
            grading_provider = $9, grading_score = $10, grading_number = $11, notes = $12, reference = $13,
            variants = $14::jsonb, hidden = $15, valid = $16, search_text = $17, offers_enabled = $18,
            offer_auto_accept_at = $19, offer_auto_decline_below = $20, updated_at = now()
      WHERE id = $1 AND seller_id = $2 AND deleted_at IS NULL
      ${RETURNING}`,
    [
      id,
      sellerId,
      c.item_urn,
      c.condition,
      c.language,
      c.price,
      c.quantity,
      c.comment,
      c.grading_provider,
      c.grading_score,
      c.grading_number,
      c.notes,
      c.reference,
      JSON.stringify(c.variants),
      c.hidden,
      c.valid,
      c.search_text,
      c.offers_enabled,
      c.offer_auto_accept_at,
      c.offer_auto_decline_below,
    ],
  );
  const [updated] = result[0];
  if (!updated) return null;
  await recordChange(tx, sellerId, 'LISTING_UPDATED', [updated]);
  // Open offers end if the listing now sells out below them or is priced at most their price.
  await noticeOpenOffers(tx, [id], offerChanges);
  return updated;
}

/**
 * Soft-deletes a listing that no open checkout holds and emits `LISTING_DELETED`.
 * Returns 'deleted', 'locked' (held by a checkout) or 'missing' (not the caller's).
 */
export async function deleteListing(
  tx: EntityManager,
  sellerId: string,
  id: string,
  offerChanges: OfferChangeStarts,
): Promise<'deleted' | 'locked' | 'missing'> {
  const result: [WrittenListing[], number] = await tx.query(
    `UPDATE listings SET deleted_at = now(), updated_at = now()
      WHERE id = $1 AND seller_id = $2 AND deleted_at IS NULL AND reserved = 0
      ${RETURNING}`,
    [id, sellerId],
  );
  const [deleted] = result[0];
  if (deleted) {
    await recordChange(tx, sellerId, 'LISTING_DELETED', [deleted]);
    await noticeOpenOffers(tx, [id], offerChanges);
    return 'deleted';
  }
  const held = await tx.query(`SELECT 1 FROM listings WHERE id = $1 AND seller_id = $2 AND deleted_at IS NULL`, [id, sellerId]);
  return held.length > 0 ? 'locked' : 'missing';
}
