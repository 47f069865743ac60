import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `catalog_search`: one narrow row per catalog item holding only what catalog search matches,
 * filters and orders by (name, search vector, hierarchy URNs, lower-cased rarity, lowest live
 * price), written in name order so that the items of one name share pages. On the 1M-item bench
 * catalog a name's 6,212 matches sat on 6,212 pages of `catalog_items` (rows of about 600 bytes
 * with descriptions, images and metadata); here they sit on about 60
 * (docs/discover.md, "Search table"). `min_price` is `item_market.min_price`, so one index,
 * `(min_price, name, urn)`, is the whole price order (nulls, nothing for sale, last by name).
 *
 * Kept by the database, as `catalog_names` and `item_market` are: statement triggers on
 * `catalog_items` (insert, update; a deleted item's row goes by the foreign key's cascade) and on
 * `item_market` (insert, update, delete) write it in the writing transaction. New rows are
 * appended, so a catalog that grows by imports slowly loses the name order; `CLUSTER
 * catalog_search USING catalog_search_name_idx` restores it (it locks only this table, for
 * seconds at 1M rows; docs/operations.md).
 *
 * Safe on a big catalog: the migration runs outside one transaction, so nothing is locked for
 * longer than a batch. The table and triggers come first (each CREATE TRIGGER waits for running
 * writes, then holds its lock for an instant), so every write from then on is mirrored; the copy
 * follows in batches of 5,000 items in name order, each its own transaction holding the rows it
 * copies FOR SHARE (a catalog update of them waits for that batch's commit, then its trigger finds
 * the row) and the 128 item-market lock buckets (so no price changes between read and copy; a
 * listing commit's market refresh waits at most one batch); a last pass
 * copies any item a concurrent rename moved behind the batches' cursor. Indexes are built
 * CONCURRENTLY afterwards, so writes mirrored into the table never wait for them, and
 * catalog_items' two search indexes, read by nothing any more, are dropped CONCURRENTLY.
 */
export class CatalogSearchTable1733670000000 implements MigrationInterface {
  name = 'CatalogSearchTable1733670000000';
  transaction = false;

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE catalog_search (
        urn text PRIMARY KEY REFERENCES catalog_items(urn) ON DELETE CASCADE ON UPDATE CASCADE,
        name text NOT NULL,
        search_vector tsvector NOT NULL,
        game_urn text NOT NULL,
        series_urn text NOT NULL,
        set_urn text NOT NULL,
        rarity_key text NOT NULL,
        min_price integer
      ) WITH (fillfactor = 90)`);
    // Price updates rewrite a row (min_price is indexed): the free tenth of each page keeps the new
    // version on the page of its name.

    await q.query(`
      CREATE FUNCTION catalog_search_from_items() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO catalog_search (urn, name, search_vector, game_urn, series_urn, set_urn, rarity_key, min_price)
          SELECT n.urn, n.name, n.search_vector, n.game_urn, n.series_urn, n.set_urn, lower(n.rarity), m.min_price
            FROM new_rows n LEFT JOIN item_market m ON m.item_urn = n.urn
          ON CONFLICT (urn) DO NOTHING;
        ELSE
          UPDATE catalog_search s
             SET name = n.name, search_vector = n.search_vector, game_urn = n.game_urn, series_urn = n.series_urn,
                 set_urn = n.set_urn, rarity_key = lower(n.rarity)
            FROM new_rows n
           WHERE s.urn = n.urn
             AND (s.name, s.search_vector, s.game_urn, s.series_urn, s.set_urn, s.rarity_key)
                 IS DISTINCT FROM (n.name, n.search_vector, n.game_urn, n.series_urn, n.set_urn, lower(n.rarity));
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION catalog_search_from_market() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          UPDATE catalog_search s SET min_price = NULL FROM old_rows o WHERE s.urn = o.item_urn AND s.min_price IS NOT NULL;
        ELSE
          UPDATE catalog_search s SET min_price = n.min_price
            FROM new_rows n WHERE s.urn = n.item_urn AND s.min_price IS DISTINCT FROM n.min_price;
        END IF;
        RETURN NULL;
      END $$`);
    const triggers: Array<[table: string, op: string, transition: string, fn: string]> = [
      ['catalog_items', 'INSERT', 'NEW TABLE AS new_rows', 'catalog_search_from_items'],
      ['catalog_items', 'UPDATE', 'NEW TABLE AS new_rows', 'catalog_search_from_items'],
      ['item_market', 'INSERT', 'NEW TABLE AS new_rows', 'catalog_search_from_market'],
      ['item_market', 'UPDATE', 'NEW TABLE AS new_rows', 'catalog_search_from_market'],
      ['item_market', 'DELETE', 'OLD TABLE AS old_rows', 'catalog_search_from_market'],
    ];
    for (const [table, op, transition, fn] of triggers) {
      await q.query(`
        CREATE TRIGGER ${table}_search_${op.toLowerCase()} AFTER ${op} ON ${table}
          REFERENCING ${transition} FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`);
    }

    // The copy, in name order, a batch per transaction.
    let after: [string, string] | null = null;
    for (;;) {
      await q.startTransaction();
      try {
        await q.query(`SELECT pg_advisory_xact_lock(1733443700, k) FROM generate_series(0, 127) k`);
        const rows: Array<{ name: string; urn: string }> = await q.query(
          `WITH batch AS (
             SELECT i.urn, i.name, i.search_vector, i.game_urn, i.series_urn, i.set_urn, lower(i.rarity) AS rarity_key
               FROM catalog_items i
              WHERE ${after ? '(i.name, i.urn) > ($1, $2)' : 'true'}
              ORDER BY i.name, i.urn LIMIT ${BATCH} FOR SHARE),
           copied AS (
             INSERT INTO catalog_search (urn, name, search_vector, game_urn, series_urn, set_urn, rarity_key, min_price)
             SELECT b.urn, b.name, b.search_vector, b.game_urn, b.series_urn, b.set_urn, b.rarity_key, m.min_price
               FROM batch b LEFT JOIN item_market m ON m.item_urn = b.urn
              ORDER BY b.name, b.urn
             ON CONFLICT (urn) DO NOTHING)
           SELECT name, urn FROM batch ORDER BY name DESC, urn DESC LIMIT 1`,
          after ?? [],
        );
        await q.commitTransaction();
        if (!rows.length) break;
        after = [rows[0]!.name, rows[0]!.urn];
      } catch (err) {
        await q.rollbackTransaction();
        throw err;
      }
    }
    await q.query(`
      INSERT INTO catalog_search (urn, name, search_vector, game_urn, series_urn, set_urn, rarity_key, min_price)
      SELECT i.urn, i.name, i.search_vector, i.game_urn, i.series_urn, i.set_urn, lower(i.rarity), m.min_price
        FROM catalog_items i LEFT JOIN item_market m ON m.item_urn = i.urn
       WHERE NOT EXISTS (SELECT 1 FROM catalog_search s WHERE s.urn = i.urn)
      ON CONFLICT (urn) DO NOTHING`);

    for (const index of [
      `catalog_search_text_idx ON catalog_search USING gin (search_vector)`,
      // The typo half of a match fetches items by name; sorting by name walks it.
      `catalog_search_name_idx ON catalog_search (name, urn)`,
      // The price order: cheapest first, nothing for sale (null) last, then by name.
      `catalog_search_price_idx ON catalog_search (min_price, name, urn)`,
      `catalog_search_set_idx ON catalog_search (set_urn)`,
      `catalog_search_series_idx ON catalog_search (series_urn)`,
    ]) {
      await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${index}`);
    }
    // Search reads catalog_search alone now: catalog_items' search indexes only slowed imports.
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS catalog_items_search_idx`);
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS catalog_items_name_trgm_idx`);
    // Sets the visibility map too, so counting a name's matches needs no heap page it can skip.
    await q.query(`VACUUM (ANALYZE) catalog_search`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS catalog_items_search_idx ON catalog_items USING gin (search_vector)`);
    await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS catalog_items_name_trgm_idx ON catalog_items USING gin (name gin_trgm_ops)`);
    for (const [table, op] of [
      ['catalog_items', 'insert'],
      ['catalog_items', 'update'],
      ['item_market', 'insert'],
      ['item_market', 'update'],
      ['item_market', 'delete'],
    ]) {
      await q.query(`DROP TRIGGER ${table}_search_${op} ON ${table}`);
    }
    await q.query(`DROP FUNCTION catalog_search_from_market()`);
    await q.query(`DROP FUNCTION catalog_search_from_items()`);
    await q.query(`DROP TABLE catalog_search`);
  }
}

/**
 * Items copied per transaction. On the 1M-item bench catalog, on a host at load 15-20, the whole
 * migration took 246 s with batches of 20,000 taking about 3 s each (reading catalog_items in
 * name order is a random read): a quarter of that keeps a listing commit's wait under a second.
 */
const BATCH = 5_000;
