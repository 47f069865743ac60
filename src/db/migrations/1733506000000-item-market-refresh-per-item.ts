import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `item_market_refresh` aggregates each touched item through its own index probe (a LATERAL
 * subquery per URN on a live-listing index led by `item_urn`), so its cost follows the live
 * listings of the touched items whatever the planner believes about `listings`.
 *
 * The first version aggregated `WHERE item_urn = ANY(urns)` in one join. PL/pgSQL switches to a
 * generic plan after five calls in a session; while `listings` had no statistics yet (a new
 * database, or one that grew fast before autovacuum analysed it) that plan started from
 * `seller_accounts` and read every listing of every active seller, filtering by URN: every batch
 * of a CSV import re-read all listings written before it (10,000 rows: 145–185 ms of refresh per
 * batch on the busy bench machine, 26–66 ms with this version; bench/results/seller-listings-import-profile*.md).
 */
const refreshFunction = (stats: string) => `
  CREATE OR REPLACE FUNCTION item_market_refresh(urns text[]) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE
    k integer;
  BEGIN
    -- 128 lock buckets (namespaced by 1733443700): a commit holds at most 128 advisory locks
    -- however many items it touched (the shared lock table is small), and two commits whose
    -- items share a bucket only take turns for the few milliseconds of the recomputation.
    FOR k IN SELECT DISTINCT abs(hashtext(u) % 128) FROM unnest(urns) u ORDER BY 1 LOOP
      PERFORM pg_advisory_xact_lock(1733443700, k);
    END LOOP;
    -- A new statement: its snapshot includes every commit that held these locks before us.
    WITH stats AS (${stats}),
    gone AS (
      DELETE FROM item_market m
       WHERE m.item_urn = ANY(urns) AND NOT EXISTS (SELECT 1 FROM stats s WHERE s.item_urn = m.item_urn))
    INSERT INTO item_market (item_urn, min_price, max_price, available, quantity)
    SELECT item_urn, min_price, max_price, available, quantity FROM stats
    ON CONFLICT (item_urn) DO UPDATE
      SET min_price = excluded.min_price, max_price = excluded.max_price,
          available = excluded.available, quantity = excluded.quantity
      WHERE (item_market.min_price, item_market.max_price, item_market.available, item_market.quantity)
            IS DISTINCT FROM (excluded.min_price, excluded.max_price, excluded.available, excluded.quantity);
  END $$`;

// The live-listing definition of src/services/listings/visibility.ts (LIVE_LISTING_SQL), per item;
// an item with nothing live yields no row (HAVING on the ungrouped aggregate).
const PER_ITEM = `
      SELECT u.urn AS item_urn, s.min_price, s.max_price, s.available, s.quantity
        FROM (SELECT DISTINCT unnest(urns) AS urn) u
        CROSS JOIN LATERAL (
          SELECT min(l.price) AS min_price, max(l.price) AS max_price,
                 sum(l.quantity - l.reserved)::int AS available, sum(l.quantity)::int AS quantity
            FROM listings l JOIN seller_accounts sa ON sa.user_id = l.seller_id
           WHERE l.item_urn = u.urn
             AND l.deleted_at IS NULL AND NOT l.hidden AND l.valid AND l.quantity > l.reserved
             AND sa.status = 'ACTIVE' AND NOT sa.vacation
          HAVING count(*) > 0) s`;

const ALL_AT_ONCE = `
      SELECT l.item_urn, min(l.price) AS min_price, max(l.price) AS max_price,
             sum(l.quantity - l.reserved)::int AS available, sum(l.quantity)::int AS quantity
        FROM listings l JOIN seller_accounts sa ON sa.user_id = l.seller_id
       WHERE l.item_urn = ANY(urns)
         AND l.deleted_at IS NULL AND NOT l.hidden AND l.valid AND l.quantity > l.reserved
         AND sa.status = 'ACTIVE' AND NOT sa.vacation
       GROUP BY l.item_urn`;

export class ItemMarketRefreshPerItem1733506000000 implements MigrationInterface {
  name = 'ItemMarketRefreshPerItem1733506000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(refreshFunction(PER_ITEM));
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(refreshFunction(ALL_AT_ONCE));
  }
}
