import type { DataSource, EntityManager } from 'typeorm';
import { prepared, queryPrepared } from '../../db/prepared';

/**
 * Marks a seller's stats stale. Call it in the transaction of any change that alters them
 * (listings, the checkout commit, order actions, case changes), so every API process and the worker see
 * the new version exactly when the change commits. Caches key on (seller, version).
 */
export async function touchSellerStats(tx: EntityManager, sellerId: string): Promise<void> {
  await tx.query(`UPDATE seller_accounts SET stats_version = stats_version + 1 WHERE user_id = $1`, [sellerId]);
}

/** The seller's current version, as text (it is a bigint): what stats and search caches key on. */
export async function readSellerStatsVersion(db: DataSource, sellerId: string): Promise<string> {
  const [row] = await queryPrepared<{ version: string }>(db, STATS_VERSION, [sellerId]);
  return row?.version ?? '0';
}

/** Read by every seller search and stats answer, cached or not. */
const STATS_VERSION = prepared('seller-stats-version', `SELECT stats_version::text AS version FROM seller_accounts WHERE user_id = $1`);
