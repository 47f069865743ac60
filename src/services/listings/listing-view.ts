import type { DataSource, EntityManager } from 'typeorm';
import type { Listing } from '../../db/entities';
import { prepared, queryPrepared } from '../../db/prepared';
import type { ListingVariant } from '../../db/entities/listing';
import { loadItems, type ItemView } from '../catalog/item-view';
import { loadUserSummaries, type UserSummary } from '../users/user-summary';
import { available, locked } from './visibility';

export interface AttachmentView {
  id: string;
  imageId: string;
  url: string;
}

/** The spec's Listing resource. `notes` and `reference` are the seller's private fields. */
export interface ListingView {
  id: string;
  sellerId: string;
  condition: string;
  price: number;
  language: string;
  createdAt: Date;
  updatedAt: Date;
  /** Null when the listed URN is not (or no longer) in the catalog; such a listing is invalid. */
  item: ItemView | null;
  seller: UserSummary | null;
  locked: boolean;
  valid: boolean;
  hidden: boolean;
  quantity: number;
  available: number;
  variants: ListingVariant[];
  comment: string;
  gradingProvider: string | null;
  gradingScore: string | null;
  gradingNumber: string | null;
  attachments: AttachmentView[];
  /** Whether buyers may make offers; the thresholds only for the owning seller. */
  offers: { enabled: boolean; autoAcceptAt?: number | null; autoDeclineBelow?: number | null };
  notes?: string | null;
  reference?: string | null;
}

export interface ListingViewOptions {
  /** Include `notes` and `reference`: only ever for the owning seller. */
  includePrivate: boolean;
  /**
   * Leave `item` and `seller` null without reading them: for a caller that fills them from
   * caches of its own (`ItemListings` for listing search, seller search).
   */
  withoutItemAndSeller?: boolean;
  /**
   * Each listing's attachments by listing id, read by the caller's own query with
   * `ATTACHMENTS_JSON_SQL` (`ItemListings.load`, `loadListingRows`), so none is read here. A
   * listing absent has none.
   */
  attachments?: Map<string, AttachmentView[]>;
}

/**
 * The attachments of the listing aliased `l`, as a JSON array of `AttachmentView` in position
 * order: the one statement of what a listing's attachments are, for `loadAttachments` and for a
 * query that selects them with its listings (`ItemListings.load`, `loadListingRows`: one round
 * trip instead of two).
 */
export const ATTACHMENTS_JSON_SQL = `(SELECT coalesce(json_agg(json_build_object('id', a.id, 'imageId', a.image_id, 'url', a.url) ORDER BY a.position), '[]')
    FROM listing_attachments a WHERE a.listing_id = l.id)`;

/** The attachments of these listings, by listing id. */
async function loadAttachments(db: DataSource | EntityManager, ids: string[]): Promise<Map<string, AttachmentView[]>> {
  const rows: Array<{ id: string; attachments: AttachmentView[] }> = await db.query(
    `SELECT l.id, ${ATTACHMENTS_JSON_SQL} AS attachments FROM unnest($1::uuid[]) AS l (id)`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.attachments]));
}

/**
 * Enriches listing rows into full views with a fixed number of queries whatever the page size
 * (items with aggregates, seller summaries, attachments: each only when not given), never one per listing.
 */
export async function toListingViews(
  db: DataSource | EntityManager,
  listings: Listing[],
  options: ListingViewOptions,
): Promise<ListingView[]> {
  if (listings.length === 0) return [];
  const ids = listings.map((l) => l.id);
  const related = !options.withoutItemAndSeller;
  const [items, sellers, attachments] = await Promise.all([
    related
      ? loadItems(
          db,
          listings.map((l) => l.itemUrn),
        )
      : new Map<string, ItemView>(),
    related
      ? loadUserSummaries(
          db,
          listings.map((l) => l.sellerId),
        )
      : new Map<string, UserSummary>(),
    options.attachments ?? loadAttachments(db, ids),
  ]);
  return listings.map((l) => ({
    id: l.id,
    sellerId: l.sellerId,
    condition: l.condition,
    price: l.price,
    language: l.language,
    createdAt: l.createdAt,
    updatedAt: l.updatedAt,
    item: items.get(l.itemUrn) ?? null,
    seller: sellers.get(l.sellerId) ?? null,
    locked: locked(l),
    valid: l.valid,
    hidden: l.hidden,
    quantity: l.quantity,
    available: available(l),
    variants: l.variants,
    comment: l.comment,
    gradingProvider: l.gradingProvider,
    gradingScore: l.gradingScore,
    gradingNumber: l.gradingNumber,
    attachments: attachments.get(l.id) ?? [],
    offers: options.includePrivate
      ? { enabled: l.offersEnabled, autoAcceptAt: l.offerAutoAcceptAt, autoDeclineBelow: l.offerAutoDeclineBelow }
      : { enabled: l.offersEnabled },
    ...(options.includePrivate ? { notes: l.notes, reference: l.reference } : {}),
  }));
}

/**
 * Listings by id, in the order given, with their attachments; ids that do not exist are skipped.
 * One round trip: the listings are read with their attachments.
 */
export async function loadListingRows(
  db: DataSource | EntityManager,
  ids: string[],
): Promise<{ listings: Listing[]; attachments: Map<string, AttachmentView[]> }> {
  if (ids.length === 0) return { listings: [], attachments: new Map() };
  const rows = await queryPrepared<WithAttachments>(db, LISTINGS_BY_ID, [ids]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return {
    listings: ids.map((id) => byId.get(id)).filter((l): l is WithAttachments => l !== undefined),
    attachments: new Map(rows.map((r) => [r.id, r.attachments])),
  };
}

/**
 * Every column of a listing (alias `l`) under its entity property's name: a row of a raw
 * statement that selects these is a `Listing`, without the query builder's per-call cost.
 */
export const LISTING_COLUMNS = `l.id, l.seller_id AS "sellerId", l.item_urn AS "itemUrn", l.condition, l.language, l.price,
  l.quantity, l.reserved, l.comment, l.grading_provider AS "gradingProvider", l.grading_score AS "gradingScore",
  l.grading_number AS "gradingNumber", l.notes, l.reference, l.variants, l.hidden, l.valid,
  l.offers_enabled AS "offersEnabled", l.offer_auto_accept_at AS "offerAutoAcceptAt",
  l.offer_auto_decline_below AS "offerAutoDeclineBelow", l.created_at AS "createdAt", l.updated_at AS "updatedAt", l.deleted_at AS "deletedAt"`;

type WithAttachments = Listing & { attachments: AttachmentView[] };

const LISTINGS_BY_ID = prepared(
  'listings-by-id',
  `SELECT ${LISTING_COLUMNS}, ${ATTACHMENTS_JSON_SQL} AS attachments FROM listings l WHERE l.id = ANY($1::uuid[])`,
);

/** Listing views by id, in the order given; ids that do not exist are skipped. */
export async function loadListingViews(db: DataSource | EntityManager, ids: string[], options: ListingViewOptions): Promise<ListingView[]> {
  const { listings, attachments } = await loadListingRows(db, ids);
  return toListingViews(db, listings, { attachments, ...options });
}
