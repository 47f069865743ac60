import type { DataSource } from 'typeorm';
import { prepared, queryPrepared } from '../../db/prepared';

/**
 * The seller's current stats version, as text (it is a bigint): what stats and search caches
 * key on. The database bumps it at the commit of any write to a row the stats or the seller's
 * search count (listings, their photos, orders, cases, case outcomes, the seller's status;
 * migration 1733640000000), so no writer has to remember to.
 */
export async function readSellerStatsVersion(db: DataSource, sellerId: string): Promise<string> {
  const [row] = await queryPrepared<{ version: string }>(db, STATS_VERSION, [sellerId]);
  return row?.version ?? '0';
}

/** Read by every seller search and stats answer, cached or not. */
const STATS_VERSION = prepared('seller-stats-version', `SELECT stats_version::text AS version FROM seller_accounts WHERE user_id = $1`);
