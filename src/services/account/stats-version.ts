import type { DataSource } from 'typeorm';

/**
 * The user's current account stats version, as text (a bigint): what the account stats cache
 * keys on. The database bumps it at the commit of any write to a row the stats count
 * (migration 1733640000000), so no writer has to remember to.
 */
export async function readAccountStatsVersion(db: DataSource, userId: string): Promise<string> {
  const [row] = await db.query(`SELECT account_stats_version::text AS version FROM users WHERE id = $1`, [userId]);
  return row?.version ?? '0';
}
