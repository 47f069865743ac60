import type { EntityManager } from 'typeorm';
import { newId } from '../../ids';
import { commitStock, releaseStock, reserveStock } from '../listings/stock';

/**
 * A checkout's listing holds. Placing is all-or-nothing per checkout (the caller's transaction
 * rolls back when a hold fails); releasing and committing act only on unreleased holds, so
 * repeating either changes nothing.
 */

/** Places one hold per line; returns the listing ids whose units were not available. */
export async function placeHolds(
  tx: EntityManager,
  checkoutId: string,
  lines: Array<{ listingId: string; quantity: number }>,
  expiresAt: Date,
): Promise<string[]> {
  const failed: string[] = [];
  const held: Array<{ listingId: string; quantity: number }> = [];
  // A fixed (id) order means two checkouts over the same listings never lock them in opposite orders.
  for (const line of [...lines].sort((a, b) => a.listingId.localeCompare(b.listingId))) {
    if (await reserveStock(tx, line.listingId, line.quantity)) held.push(line);
    else failed.push(line.listingId);
  }
  // One statement for all holds: the reserved rows stay locked until commit, so fewer round trips
  // after the first reservation is less time other buyers of those listings wait.
  if (held.length > 0) {
    await tx.query(
      `INSERT INTO listing_holds (id, listing_id, checkout_id, quantity, expires_at)
       SELECT h.id, h.listing_id, $1, h.quantity, $2 FROM unnest($3::uuid[], $4::uuid[], $5::int[]) AS h (id, listing_id, quantity)`,
      [checkoutId, expiresAt, held.map(() => newId()), held.map((h) => h.listingId), held.map((h) => h.quantity)],
    );
  }
  return failed;
}

/** Marks the checkout's open holds released and returns them (each exactly once). */
async function takeOpenHolds(tx: EntityManager, checkoutId: string): Promise<Array<{ listing_id: string; quantity: number }>> {
  const [rows]: [Array<{ listing_id: string; quantity: number }>] = await tx.query(
    `UPDATE listing_holds SET released_at = now() WHERE checkout_id = $1 AND released_at IS NULL RETURNING listing_id, quantity`,
    [checkoutId],
  );
  return rows.sort((a, b) => a.listing_id.localeCompare(b.listing_id));
}

/** Gives held units back to the listings (payment failed, superseded or expired). */
export async function releaseHolds(tx: EntityManager, checkoutId: string): Promise<void> {
  for (const hold of await takeOpenHolds(tx, checkoutId)) {
    if (!(await releaseStock(tx, hold.listing_id, hold.quantity))) throw new Error(`hold on ${hold.listing_id} exceeds its reserved units`);
  }
}

/** Turns held units into sold units: they leave both `reserved` and `quantity`. */
export async function commitHolds(tx: EntityManager, checkoutId: string): Promise<void> {
  for (const hold of await takeOpenHolds(tx, checkoutId)) {
    if (!(await commitStock(tx, hold.listing_id, hold.quantity))) throw new Error(`hold on ${hold.listing_id} exceeds its reserved units`);
  }
}
