import type { DataSource, EntityManager } from 'typeorm';

/**
 * Marks a user's unread counts stale. Called in the transaction of every change to them (a
 * message to the user, the user reading), so every API process sees the new version exactly
 * when the change commits.
 */
export async function touchInbox(tx: EntityManager, userId: string): Promise<void> {
  await tx.query(
    `INSERT INTO inbox_versions (user_id, version) VALUES ($1, 1)
     ON CONFLICT (user_id) DO UPDATE SET version = inbox_versions.version + 1`,
    [userId],
  );
}

export interface UnreadTotal {
  /** Unread messages across all the user's conversations. */
  messages: number;
  /** Conversations with at least one unread message. */
  conversations: number;
  /** Changes whenever the counts may have: usable as an ETag by pollers. */
  version: string;
}

/** Bounds the per-process cache; the oldest user's entry goes first. */
const MAX_CACHED_USERS = 50_000;

/**
 * The total unread count, cheap enough to poll: a per-process cache keyed by (user, inbox
 * version), like the seller stats. A poll costs one primary-key read while nothing changed;
 * the sum over the user's conversations runs only after a change.
 */
export class UnreadCounts {
  private readonly cache = new Map<string, UnreadTotal>();

  constructor(private readonly db: DataSource) {}

  async total(userId: string): Promise<UnreadTotal> {
    // Read before summing: a change committed meanwhile bumps the version past what is cached.
    const [row] = await this.db.query(`SELECT version::text AS version FROM inbox_versions WHERE user_id = $1`, [userId]);
    const version: string = row?.version ?? '0';
    const cached = this.cache.get(userId);
    if (cached?.version === version) return cached;
    const [sum] = await this.db.query(
      `SELECT coalesce(sum(unread_count), 0)::int AS messages, count(*) FILTER (WHERE unread_count > 0)::int AS conversations
         FROM conversation_participants WHERE user_id = $1`,
      [userId],
    );
    const total: UnreadTotal = { messages: sum.messages, conversations: sum.conversations, version };
    this.cache.delete(userId);
    if (this.cache.size >= MAX_CACHED_USERS) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(userId, total);
    return total;
  }
}
