import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Catalog search sorted by price walks `item_market` in price order and stops after the page
 * (items with nothing for sale have no row there and follow, by name).
 *
 * Buyer listing search of one item (`POST /listings/item`): its page walks this index in
 * (price, id) order and stops after `from + size` live rows; its total counts the matches from
 * the index alone (the filter columns are included), without reading the listing rows.
 * Supersedes `listings_item_live_idx`, whose predicate lacked `valid` and which had no id.
 */
export class DiscoverIndexes1733443700001 implements MigrationInterface {
  name = 'DiscoverIndexes1733443700001';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX listings_item_live_price_idx ON listings (item_urn, price, id)
        INCLUDE (seller_id, condition, language, grading_provider)
        WHERE deleted_at IS NULL AND NOT hidden AND valid AND quantity > reserved`);
    await q.query(`DROP INDEX listings_item_live_idx`);
    await q.query(`CREATE INDEX item_market_price_idx ON item_market (min_price, item_urn)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX item_market_price_idx`);
    await q.query(`
      CREATE INDEX listings_item_live_idx ON listings (item_urn, price)
        WHERE deleted_at IS NULL AND hidden = false AND quantity > reserved`);
    await q.query(`DROP INDEX listings_item_live_price_idx`);
  }
}
