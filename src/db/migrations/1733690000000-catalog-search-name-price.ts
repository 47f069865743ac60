import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `catalog_search_name_price_idx`, `(name, min_price, urn)` on `catalog_search`: each name's items
 * in price order. A price-sorted search whose matches all carry one of a few names (a card name,
 * or a misspelling of one) merges those names' walks of this index, reading about a page of
 * entries per name, where collecting its matches read all of them up to the 10,000 cap: on the
 * 1M-item bench catalog a popular name has thousands of items (docs/discover.md, "Search table").
 *
 * Built CONCURRENTLY, so catalog and price writes go on while it builds (seconds at 1M rows);
 * CREATE INDEX CONCURRENTLY cannot run inside a transaction, hence `transaction = false`.
 */
export class CatalogSearchNamePrice1733690000000 implements MigrationInterface {
  name = 'CatalogSearchNamePrice1733690000000';
  transaction = false;

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS catalog_search_name_price_idx ON catalog_search (name, min_price, urn)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS catalog_search_name_price_idx`);
  }
}
