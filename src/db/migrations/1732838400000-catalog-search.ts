import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Discover: full-text and typo-tolerant catalog search, the indexes behind hierarchy counts and
 * buyer listing search, the completed-sales ledger (price history) and the reviews table.
 */
export class CatalogSearch1732838400000 implements MigrationInterface {
  name = 'CatalogSearch1732838400000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);

    // 'simple' rather than 'english': card names are proper nouns ("Charizard", "Mr. Mime") that
    // a stemmer would mangle. The title carries the set name and number ("Charizard (Base 4/102)"),
    // so "charizard base" matches without joining catalog_sets at query time.
    await q.query(`
      ALTER TABLE catalog_items ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('simple', name), 'A') ||
        setweight(to_tsvector('simple', title), 'B') ||
        setweight(to_tsvector('simple', rarity || ' ' || number), 'C')
      ) STORED`);
    await q.query(`CREATE INDEX catalog_items_search_idx ON catalog_items USING gin (search_vector)`);
    // Typo tolerance ("charzard"): trigram similarity of the query to the card name.
    await q.query(`CREATE INDEX catalog_items_name_trgm_idx ON catalog_items USING gin (name gin_trgm_ops)`);
    // Browsing without a query sorts by name; hierarchy counts group by series and game.
    await q.query(`CREATE INDEX catalog_items_name_idx ON catalog_items (name, urn)`);
    await q.query(`CREATE INDEX catalog_items_series_idx ON catalog_items (series_urn)`);
    await q.query(`CREATE INDEX catalog_items_game_idx ON catalog_items (game_urn)`);
    await q.query(`CREATE INDEX catalog_sets_game_idx ON catalog_sets (game_urn)`);

    // Buyer listing search sorted by newest (cheapest first uses listings_item_live_idx).
    await q.query(`
      CREATE INDEX listings_item_live_newest_idx ON listings (item_urn, created_at DESC)
        WHERE deleted_at IS NULL AND hidden = false AND quantity > reserved`);

    await q.query(`
      CREATE TABLE item_sales (
        id uuid PRIMARY KEY,
        item_urn text NOT NULL,
        listing_id uuid NOT NULL,
        order_id uuid,
        unit_price integer NOT NULL CHECK (unit_price >= 0),
        quantity integer NOT NULL CHECK (quantity > 0),
        sold_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX item_sales_item_sold_idx ON item_sales (item_urn, sold_at)`);

    // No foreign key to orders: that table belongs to a later migration.
    await q.query(`
      CREATE TABLE reviews (
        id uuid PRIMARY KEY,
        order_id uuid NOT NULL,
        reviewer_id uuid NOT NULL REFERENCES users(id),
        reviewed_user_id uuid NOT NULL REFERENCES users(id),
        rating smallint NOT NULL CHECK (rating BETWEEN 1 AND 5),
        content text,
        revisions integer NOT NULL DEFAULT 0,
        automatic boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT reviews_one_per_order_and_reviewer UNIQUE (order_id, reviewer_id),
        CONSTRAINT reviews_not_self CHECK (reviewer_id <> reviewed_user_id)
      )`);
    await q.query(`CREATE INDEX reviews_reviewed_user_idx ON reviews (reviewed_user_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX reviews_reviewer_idx ON reviews (reviewer_id, created_at DESC)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE reviews`);
    await q.query(`DROP TABLE item_sales`);
    await q.query(`DROP INDEX listings_item_live_newest_idx`);
    for (const index of [
      'catalog_sets_game_idx',
      'catalog_items_game_idx',
      'catalog_items_series_idx',
      'catalog_items_name_idx',
      'catalog_items_name_trgm_idx',
      'catalog_items_search_idx',
    ]) {
      await q.query(`DROP INDEX ${index}`);
    }
    await q.query(`ALTER TABLE catalog_items DROP COLUMN search_vector`);
  }
}
