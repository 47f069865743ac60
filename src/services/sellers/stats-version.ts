import type { EntityManager } from 'typeorm';

/**
 * Marks a seller's stats stale. Call it in the transaction of any change that alters them
 * (listings now; orders and cases when they arrive), so every API process and the worker see
 * the new version exactly when the change commits. Caches key on (seller, version).
 */
export async function touchSellerStats(tx: EntityManager, sellerId: string): Promise<void> {
  await tx.query(`UPDATE seller_accounts SET stats_version = stats_version + 1 WHERE user_id = $1`, [sellerId]);
}
