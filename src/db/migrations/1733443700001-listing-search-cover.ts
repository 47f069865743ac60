import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Buyer listing search of one item (`POST /listings/item`): its page walks this index in
 * (price, id) order and stops after `from + size` live rows; its total counts the matches from
 * the index alone (the filter columns are included), without reading the listing rows.
 * Supersedes `listings_item_live_idx`, whose predicate lacked `valid` and which had no id.
 */
export class ListingSearchCover1733443700001 implements MigrationInterface {
  name = 'ListingSearchCover1733443700001';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX listings_item_live_price_idx ON listings (item_urn, price, id)
        INCLUDE (seller_id, condition, language, grading_provider)
        WHERE deleted_at IS NULL AND NOT hidden AND valid AND quantity > reserved`);
    await q.query(`DROP INDEX listings_item_live_idx`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX listings_item_live_idx ON listings (item_urn, price)
        WHERE deleted_at IS NULL AND hidden = false AND quantity > reserved`);
    await q.query(`DROP INDEX listings_item_live_price_idx`);
  }
}
