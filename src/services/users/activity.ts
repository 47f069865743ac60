import type { DataSource } from 'typeorm';

/** How often a user's `last_active_at` is refreshed: at most one write a minute per user. */
const RESOLUTION_MS = 60_000;
/** Bounds the per-process memory of recent stamps; the oldest entry goes first. */
const MAX_REMEMBERED = 50_000;

/**
 * Stamps `users.last_active_at` on authenticated requests: what the conversation e-mails call
 * "active" (docs/conversations.md). A process remembers whom it stamped in the last minute, so
 * a busy user costs one UPDATE a minute per API process, not one per request; the statement's
 * own condition keeps several processes from all writing within the same minute.
 */
export class UserActivity {
  private readonly stamped = new Map<string, number>();

  constructor(private readonly db: DataSource) {}

  async touch(userId: string): Promise<void> {
    const now = Date.now();
    const last = this.stamped.get(userId);
    if (last !== undefined && now - last < RESOLUTION_MS) return;
    this.stamped.delete(userId);
    if (this.stamped.size >= MAX_REMEMBERED) this.stamped.delete(this.stamped.keys().next().value!);
    this.stamped.set(userId, now);
    await this.db.query(
      `UPDATE users SET last_active_at = now() WHERE id = $1 AND (last_active_at IS NULL OR last_active_at < now() - interval '1 minute')`,
      [userId],
    );
  }
}
