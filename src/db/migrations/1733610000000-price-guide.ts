import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The price guide (docs/price-guide.md).
 *
 * - `item_sales.condition`: the condition of the copy sold, written with the sale by the payment
 *   commit. Existing rows take it from their order line (`order_items`, the condition as sold),
 *   else from the listing; a row with neither (its listing and order gone) stays NULL and counts
 *   in no condition group.
 * - `item_sale_days`: completed sales per item, condition and UTC day (units and pence), kept by
 *   the `price-guide-rollup` Schedule for closed days only. `price_guide_rollup.rolled_through`
 *   is the last day it holds: the guide reads the days up to it from here and everything after it
 *   from `item_sales` itself, so a late or missed rollup never hides a sale.
 * - `item_sales (sold_at)`: the rollup reads one day of sales of every item.
 */
export class PriceGuide1733610000000 implements MigrationInterface {
  name = 'PriceGuide1733610000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE item_sales ADD COLUMN condition text`);
    await q.query(`
      UPDATE item_sales s
         SET condition = coalesce(
               (SELECT oi.condition FROM order_items oi WHERE oi.order_id = s.order_id AND oi.listing_id = s.listing_id LIMIT 1),
               (SELECT l.condition FROM listings l WHERE l.id = s.listing_id))`);
    await q.query(`CREATE INDEX item_sales_sold_idx ON item_sales (sold_at)`);
    await q.query(`
      CREATE TABLE item_sale_days (
        item_urn text NOT NULL,
        condition text NOT NULL,
        day date NOT NULL,
        -- Units sold, and what they sold for in all (sum of unit price × quantity, pence).
        units integer NOT NULL CHECK (units > 0),
        amount bigint NOT NULL CHECK (amount >= 0),
        PRIMARY KEY (item_urn, day, condition)
      )`);
    await q.query(`
      CREATE TABLE price_guide_rollup (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        rolled_through date NOT NULL,
        rolled_at timestamptz NOT NULL
      )`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE price_guide_rollup`);
    await q.query(`DROP TABLE item_sale_days`);
    await q.query(`DROP INDEX item_sales_sold_idx`);
    await q.query(`ALTER TABLE item_sales DROP COLUMN condition`);
  }
}
