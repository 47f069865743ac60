import type { DataSource } from 'typeorm';
import { readAccountStatsVersion } from './stats-version';

/** A buyer-side summary of the account (docs/account.md). Money in pence. */
export interface AccountStats {
  purchases: { total: number; paid: number; completed: number };
  /** Sum of the totals of every purchase paid for, less what was refunded (docs/money.md). */
  spent: number;
  /** Cases the user opened that are not CLOSED. */
  cases: { open: number };
  reviews: { written: number; received: number };
  /** Unread messages and the conversations holding them (the conversations' own cached total). */
  unread: { messages: number; conversations: number };
}

/** The user's unread-message total, kept and cached by the conversations area. */
export type UnreadTotalOf = (userId: string) => Promise<{ messages: number; conversations: number }>;

/** Bounds the per-process cache; the oldest user's entry goes first. */
const MAX_CACHED_USERS = 10_000;

/**
 * Account stats with a per-process cache keyed by (user, `users.account_stats_version`). The
 * database bumps the version at the commit of every write to a row counted here (purchases,
 * payment refunds, cases, reviews: migration 1733640000000), whoever writes it, so a hit costs
 * one primary-key read and a stale entry is never served. Unread
 * messages change far more often than the rest, so they are not part of this entry: they come
 * from the conversations' own total, cached per inbox version in the same way.
 */
export class AccountStatsService {
  private readonly cache = new Map<string, { version: string; stats: Omit<AccountStats, 'unread'> }>();

  constructor(
    private readonly db: DataSource,
    private readonly unreadTotal: UnreadTotalOf,
  ) {}

  async get(userId: string): Promise<AccountStats> {
    const [stats, { messages, conversations }] = await Promise.all([this.counted(userId), this.unreadTotal(userId)]);
    return { ...stats, unread: { messages, conversations } };
  }

  private async counted(userId: string): Promise<Omit<AccountStats, 'unread'>> {
    // Read before counting: a change committed meanwhile bumps the version past the cached one.
    const version = await readAccountStatsVersion(this.db, userId);
    const cached = this.cache.get(userId);
    if (cached?.version === version) return cached.stats;
    const [row] = await this.db.query(
      `SELECT
         (SELECT count(*)::int FROM purchases WHERE buyer_id = $1) AS purchases_total,
         (SELECT count(*) FILTER (WHERE status = 'PAID')::int FROM purchases WHERE buyer_id = $1) AS purchases_paid,
         (SELECT count(*) FILTER (WHERE status = 'COMPLETED')::int FROM purchases WHERE buyer_id = $1) AS purchases_completed,
         ((SELECT coalesce(sum(total), 0) FROM purchases WHERE buyer_id = $1)
           - (SELECT coalesce(sum(r.amount), 0) FROM payment_refunds r JOIN purchases p ON p.id = r.purchase_id
               WHERE p.buyer_id = $1 AND r.status = 'SUCCEEDED'))::bigint::text AS spent,
         (SELECT count(*)::int FROM cases WHERE buyer_id = $1 AND status <> 'CLOSED') AS cases_open,
         (SELECT count(*)::int FROM reviews WHERE reviewer_id = $1 AND deleted_at IS NULL) AS reviews_written,
         (SELECT count(*)::int FROM reviews WHERE reviewed_user_id = $1 AND deleted_at IS NULL) AS reviews_received`,
      [userId],
    );
    const stats = {
      purchases: { total: row.purchases_total, paid: row.purchases_paid, completed: row.purchases_completed },
      spent: Number(row.spent),
      cases: { open: row.cases_open },
      reviews: { written: row.reviews_written, received: row.reviews_received },
    };
    this.cache.delete(userId);
    if (this.cache.size >= MAX_CACHED_USERS) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(userId, { version, stats });
    return stats;
  }
}
