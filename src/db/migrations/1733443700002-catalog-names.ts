import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `catalog_names`: the distinct card names of the catalog, for typo-tolerant search. Trigram
 * similarity depends on the name alone, so matching `%` against the few distinct names and then
 * fetching their items by the `(name, urn)` index finds the same items as matching every item row,
 * without rechecking thousands of item rows the trigram index can only nominate
 * (docs/discover.md, "Typo tolerance"). Kept by a trigger on catalog_items; a name whose last item
 * is renamed away stays and simply matches no item.
 */
export class CatalogNames1733443700002 implements MigrationInterface {
  name = 'CatalogNames1733443700002';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE catalog_names (name text PRIMARY KEY)`);
    await q.query(`CREATE INDEX catalog_names_trgm_idx ON catalog_names USING gin (name gin_trgm_ops)`);
    await q.query(`
      CREATE FUNCTION catalog_items_note_names() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO catalog_names (name) SELECT DISTINCT name FROM new_rows ON CONFLICT DO NOTHING;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER catalog_items_names_insert AFTER INSERT ON catalog_items
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_items_note_names()`);
    await q.query(`
      CREATE TRIGGER catalog_items_names_update AFTER UPDATE ON catalog_items
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_items_note_names()`);
    await q.query(`INSERT INTO catalog_names (name) SELECT DISTINCT name FROM catalog_items`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER catalog_items_names_update ON catalog_items`);
    await q.query(`DROP TRIGGER catalog_items_names_insert ON catalog_items`);
    await q.query(`DROP FUNCTION catalog_items_note_names()`);
    await q.query(`DROP TABLE catalog_names`);
  }
}
