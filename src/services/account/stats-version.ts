import type { DataSource, EntityManager } from 'typeorm';

/**
 * Marks users' account stats stale. Call it in the transaction of every change that alters
 * them (purchases, orders, reviews, cases), so each API process sees the new version exactly
 * when the change commits. The account stats cache keys on (user, version).
 */
export async function touchAccountStats(tx: EntityManager | DataSource, ...userIds: string[]): Promise<void> {
  const ids = [...new Set(userIds)];
  if (!ids.length) return;
  await tx.query(`UPDATE users SET account_stats_version = account_stats_version + 1 WHERE id = ANY($1::uuid[])`, [ids]);
}

/** The user's current stats version, as text (a bigint). */
export async function readAccountStatsVersion(db: DataSource, userId: string): Promise<string> {
  const [row] = await db.query(`SELECT account_stats_version::text AS version FROM users WHERE id = $1`, [userId]);
  return row?.version ?? '0';
}
