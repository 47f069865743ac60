import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `catalog_names.items`: how many catalog items carry each name. Catalog search counts its
 * matches up to the 10,000 cap; the matches of a name similar to the query are every item of that
 * name, so they are counted from here, a row per name, instead of read: on the 1M-item bench
 * catalog the similar names of "Fire Energy" carry 54,355 items, and reading 10,001 of them was
 * most of a price-sorted search (docs/discover.md, "Totals").
 *
 * The names trigger now counts as well: +1 per inserted row, −1 per deleted row, and an update
 * that renames moves one from the old name to the new. Each statement's changes are added per
 * name in name order, so two imports touching the same names lock their rows in the same order.
 * The triggers are replaced before the counts are filled in: dropping a trigger locks
 * catalog_items against writes until this migration commits, so no write falls between the
 * count and the trigger that keeps it.
 */
export class CatalogNameItems1733700000000 implements MigrationInterface {
  name = 'CatalogNameItems1733700000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER catalog_items_names_update ON catalog_items`);
    await q.query(`DROP TRIGGER catalog_items_names_insert ON catalog_items`);
    await q.query(`DROP FUNCTION catalog_items_note_names()`);
    await q.query(`ALTER TABLE catalog_names ADD COLUMN items integer NOT NULL DEFAULT 0`);
    // Adds each name's delta, in name order (see above).
    await q.query(`
      CREATE FUNCTION catalog_names_add(names text[], deltas integer[]) RETURNS void LANGUAGE sql AS $$
        INSERT INTO catalog_names AS c (name, items)
        SELECT d.name, sum(d.delta)::int FROM unnest(names, deltas) AS d(name, delta)
         GROUP BY d.name HAVING sum(d.delta) <> 0 ORDER BY d.name
        ON CONFLICT (name) DO UPDATE SET items = c.items + excluded.items
      $$`);
    // Each branch names only the transition tables its operation has.
    await q.query(`
      CREATE FUNCTION catalog_items_count_names() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          PERFORM catalog_names_add(array_agg(name), array_agg(n)) FROM (SELECT name, count(*)::int AS n FROM new_rows GROUP BY name) d;
        ELSIF TG_OP = 'DELETE' THEN
          PERFORM catalog_names_add(array_agg(name), array_agg(-n)) FROM (SELECT name, count(*)::int AS n FROM old_rows GROUP BY name) d;
        ELSE
          PERFORM catalog_names_add(array_agg(name), array_agg(n))
             FROM (SELECT name, 1 AS n FROM new_rows UNION ALL SELECT name, -1 FROM old_rows) d;
        END IF;
        RETURN NULL;
      END $$`);
    for (const [operation, tables] of <Array<[string, string]>>[
      ['INSERT', 'NEW TABLE AS new_rows'],
      ['UPDATE', 'OLD TABLE AS old_rows NEW TABLE AS new_rows'],
      ['DELETE', 'OLD TABLE AS old_rows'],
    ]) {
      await q.query(`
        CREATE TRIGGER catalog_items_names_${operation.toLowerCase()} AFTER ${operation} ON catalog_items
          REFERENCING ${tables} FOR EACH STATEMENT EXECUTE FUNCTION catalog_items_count_names()`);
    }
    await q.query(`
      UPDATE catalog_names c SET items = i.n
        FROM (SELECT name, count(*)::int AS n FROM catalog_items GROUP BY name) i
       WHERE c.name = i.name`);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const operation of ['delete', 'update', 'insert']) await q.query(`DROP TRIGGER catalog_items_names_${operation} ON catalog_items`);
    await q.query(`DROP FUNCTION catalog_items_count_names()`);
    await q.query(`DROP FUNCTION catalog_names_add(text[], integer[])`);
    await q.query(`ALTER TABLE catalog_names DROP COLUMN items`);
    await q.query(`
      CREATE FUNCTION catalog_items_note_names() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO catalog_names (name) SELECT DISTINCT name FROM new_rows ON CONFLICT DO NOTHING;
        RETURN NULL;
      END $$`);
    for (const operation of ['INSERT', 'UPDATE']) {
      await q.query(`
        CREATE TRIGGER catalog_items_names_${operation.toLowerCase()} AFTER ${operation} ON catalog_items
          REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_items_note_names()`);
    }
  }
}
