import type { DataSource } from 'typeorm';
import { newId } from '../../src/ids';
import { emitEvents, type ListingEventData } from '../../src/services/events/outbox';

/**
 * Creates a listing the way the listing write will (one transaction: the row and its
 * `LISTING_CREATED` outbox event). Stand-in until `POST /seller/listings` lands; tests should
 * then switch to the route.
 */
export async function createListing(db: DataSource, sellerId: string, fields: { urn?: string; quantity?: number; price?: number } = {}) {
  return db.transaction(async (tx) => {
    const listingId = newId();
    const row = { urn: fields.urn ?? 'urn:mts:card:base1-4', quantity: fields.quantity ?? 1, price: fields.price ?? 1250 };
    const [{ created_at: createdAt }] = await tx.query(
      `INSERT INTO listings (id, seller_id, item_urn, condition, language, price, quantity, valid)
       VALUES ($1, $2, $3, 'NEAR_MINT', 'en', $4, $5, true) RETURNING created_at`,
      [listingId, sellerId, row.urn, row.price, row.quantity],
    );
    const data: ListingEventData = {
      sellerId,
      createdAt: (createdAt as Date).toISOString(),
      urn: row.urn,
      listingId,
      quantity: row.quantity,
      price: row.price,
    };
    const [eventId] = await emitEvents(tx, 'LISTING_CREATED', [data]);
    return { eventId: eventId!, data };
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
