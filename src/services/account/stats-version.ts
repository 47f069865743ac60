import type { DataSource, EntityManager } from 'typeorm';

/**
 * Marks users' account stats stale. Call it in the transaction of every change that alters
 * them (purchases, orders, reviews, cases), so each API process sees the new version exactly
 * when the change commits. The account stats cache keys on (user, version). Lock order: users
 * before seller accounts (`touchSellerStats`), as in the checkout commit.
 */
export async function touchAccountStats(tx: EntityManager | DataSource, ...userIds: string[]): Promise<void> {
  const ids = [...new Set(userIds)];
  if (!ids.length) return;
  // Locked in id order, so two writers touching the same users never wait on each other in a cycle.
  await tx.query(
    `UPDATE users u SET account_stats_version = u.account_stats_version + 1
       FROM (SELECT id FROM users WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE) locked
      WHERE u.id = locked.id`,
    [ids],
  );
}

/** The user's current stats version, as text (a bigint). */
export async function readAccountStatsVersion(db: DataSource, userId: string): Promise<string> {
  const [row] = await db.query(`SELECT account_stats_version::text AS version FROM users WHERE id = $1`, [userId]);
  return row?.version ?? '0';
}
