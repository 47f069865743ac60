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
  // A fixed (id) order means two checkouts over the same listings never lock them in opposite orders.
  for (const line of [...lines].sort((a, b) => a.listingId.localeCompare(b.listingId))) {
    if (await reserveStock(tx, line.listingId, line.quantity)) {
      await tx.query(`INSERT INTO listing_holds (id, listing_id, checkout_id, quantity, expires_at) VALUES ($1, $2, $3, $4, $5)`, [
        newId(),
        line.listingId,
        checkoutId,
        line.quantity,
        expiresAt,
      ]);
    } else {
      failed.push(line.listingId);
    }
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
