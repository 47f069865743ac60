import type { DataSource } from 'typeorm';
import { newId } from '../../src/ids';
import type { ListingEventData } from '../../src/services/events/outbox';
import { NO_OFFERS, type ListingInput } from '../../src/services/listings/listing-input';
import { insertListings } from '../../src/services/listings/listing-rows';

/** A seller's listing input: a near-mint English card, nothing optional set, with `fields` on top. */
export const listingInput = (fields: Pick<ListingInput, 'urn' | 'price' | 'quantity'> & Partial<ListingInput>): ListingInput => ({
  condition: 'NEAR_MINT',
  language: 'en',
  comment: '',
  gradingProvider: null,
  gradingScore: null,
  gradingNumber: null,
  notes: null,
  reference: null,
  hidden: false,
  variants: [],
  offers: NO_OFFERS,
  ...fields,
});

/**
 * Creates a listing with the listing write's own code (`insertListings`: the row and its
 * `LISTING_CREATED` outbox event in one transaction), without going through HTTP, for tests about
 * what follows the event. Returns the event's id and the data it carries.
 */
export async function createListing(db: DataSource, sellerId: string, fields: { urn?: string; quantity?: number; price?: number } = {}) {
  return db.transaction(async (tx) => {
    const input = listingInput({
      urn: fields.urn ?? 'urn:mts:card:base1-4',
      price: fields.price ?? 1250,
      quantity: fields.quantity ?? 1,
    });
    const [listing] = await insertListings(tx, sellerId, [{ input }]);
    const [event]: Array<{ id: string; data: ListingEventData }> = await tx.query(
      `SELECT id, data FROM outbox_events WHERE type = 'LISTING_CREATED' AND data->>'listingId' = $1`,
      [listing!.id],
    );
    return { eventId: event!.id, data: event!.data };
  });
}

/**
 * The data of a `LISTING_CREATED` event whose listing need not exist: for tests and benchmarks
 * that only need events in the outbox (fan-out, fairness, load).
 */
export const listingEventData = (sellerId: string, n: number): ListingEventData => ({
  sellerId,
  createdAt: new Date().toISOString(),
  urn: `urn:mts:card:event-${n}`,
  listingId: newId(),
  quantity: 1,
  price: 100,
});
