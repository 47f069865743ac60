import type { DataSource } from 'typeorm';
import { caseStatsSource } from '../cases/case-stats';
import { orderStatsSource } from '../orders/order-stats';
import type { SellerStats, StatsSource } from './stats-source';
import { readSellerStatsVersion } from './stats-version';

const listingsSource: StatsSource = async (db, sellerId) => {
  const [row] = await db.query(
    `SELECT count(*)::int AS total, count(*) FILTER (WHERE NOT valid)::int AS invalid
       FROM listings WHERE seller_id = $1 AND deleted_at IS NULL`,
    [sellerId],
  );
  return { listings: { total: row.total, invalid: row.invalid } };
};

export const STATS_SOURCES: StatsSource[] = [listingsSource, orderStatsSource, caseStatsSource];

const empty = (): SellerStats => ({ orders: { total: 0, open: 0, waiting: 0 }, cases: { open: 0 }, listings: { total: 0, invalid: 0 } });

/** Bounds the per-process cache; the oldest seller's entry goes first. */
const MAX_CACHED_SELLERS = 10_000;

/**
 * Seller stats with a per-process cache keyed by (seller, stats version). The database
 * bumps the version at the commit of every write to a row the sources count (a trigger on each
 * table, migration 1733640000000), whichever process writes it, so a cached entry is used only
 * while nothing has changed:
 * each request costs one primary-key read instead of the counting queries.
 */
export class SellerStatsService {
  private readonly cache = new Map<string, { version: string; stats: SellerStats }>();

  constructor(
    private readonly db: DataSource,
    private readonly sources: StatsSource[] = STATS_SOURCES,
  ) {}

  async get(sellerId: string): Promise<SellerStats> {
    // The version is read before counting: a change committed meanwhile bumps it past what we
    // cache, so the next request recounts rather than trusting stale numbers.
    const version = await readSellerStatsVersion(this.db, sellerId);
    const cached = this.cache.get(sellerId);
    if (cached?.version === version) return cached.stats;
    const parts = await Promise.all(this.sources.map((source) => source(this.db, sellerId)));
    const stats = Object.assign(empty(), ...parts) as SellerStats;
    this.cache.delete(sellerId);
    if (this.cache.size >= MAX_CACHED_SELLERS) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(sellerId, { version, stats });
    return stats;
  }
}
