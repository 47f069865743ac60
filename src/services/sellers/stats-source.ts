import type { DataSource } from 'typeorm';

/** The spec's Seller stats. */
export interface SellerStats {
  orders: { total: number; open: number; waiting: number };
  cases: { open: number };
  listings: { total: number; invalid: number };
}

/**
 * One part of the stats, computed from its own tables; each source owns whole top-level keys
 * (`listings`, `orders`, `cases`). Areas add their source to STATS_SOURCES in seller-stats.ts
 * and their tables to the stats triggers (migration 1733640000000 shows how). A module of its
 * own so that sources in other areas import this type without importing seller-stats.ts, which
 * imports them.
 */
export type StatsSource = (db: DataSource, sellerId: string) => Promise<Partial<SellerStats>>;
