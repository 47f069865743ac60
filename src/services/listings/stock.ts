import type { EntityManager } from 'typeorm';

/**
 * Stock movements caused by checkouts and orders. Each is one conditional UPDATE, so two
 * buyers can never both take the last unit, and none emits an event: LISTING_UPDATED is only
 * for a seller's own edits (spec "Events"). The checkout records its `listing_holds` rows in
 * the same transaction. Each returns false when the movement is not possible (nothing changes).
 */

/** Holds `n` units for a checkout: only when `n` are available (quantity − reserved). */
export async function reserveStock(tx: EntityManager, listingId: string, n: number): Promise<boolean> {
  const [rows] = await tx.query(
    `UPDATE listings SET reserved = reserved + $2 WHERE id = $1 AND deleted_at IS NULL AND quantity - reserved >= $2 RETURNING id`,
    [listingId, n],
  );
  return rows.length === 1;
}

/** Gives back `n` held units (payment failed or the hold expired). */
export async function releaseStock(tx: EntityManager, listingId: string, n: number): Promise<boolean> {
  const [rows] = await tx.query(`UPDATE listings SET reserved = reserved - $2 WHERE id = $1 AND reserved >= $2 RETURNING id`, [
    listingId,
    n,
  ]);
  return rows.length === 1;
}

/** Turns `n` held units into a sale: they leave both the hold and the quantity. */
export async function commitStock(tx: EntityManager, listingId: string, n: number): Promise<boolean> {
  const [rows] = await tx.query(
    `UPDATE listings SET reserved = reserved - $2, quantity = quantity - $2 WHERE id = $1 AND reserved >= $2 RETURNING id`,
    [listingId, n],
  );
  return rows.length === 1;
}

/** Puts `n` sold units back on sale (their order was cancelled before shipment, or they were returned). */
export async function restoreStock(tx: EntityManager, listingId: string, n: number): Promise<boolean> {
  const [rows] = await tx.query(`UPDATE listings SET quantity = quantity + $2 WHERE id = $1 RETURNING id`, [listingId, n]);
  return rows.length === 1;
}

/**
 * Takes `n` units off sale for a replacement the seller sends: only when `n` are on sale
 * (quantity − reserved), so a replacement never oversells or eats a checkout's hold.
 */
export async function takeStock(tx: EntityManager, listingId: string, n: number): Promise<boolean> {
  const [rows] = await tx.query(
    `UPDATE listings SET quantity = quantity - $2 WHERE id = $1 AND deleted_at IS NULL AND quantity - reserved >= $2 RETURNING id`,
    [listingId, n],
  );
  return rows.length === 1;
}
