import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The seller listings area: direct uploads (images), bulk listing imports with their per-row
 * errors, delivery options, the seller stats version counter, and the indexes behind the
 * seller listing search.
 */
export class SellerListings1732924800000 implements MigrationInterface {
  name = 'SellerListings1732924800000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);

    await q.query(`
      CREATE TABLE uploads (
        id uuid PRIMARY KEY,
        owner_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'DRAFT' CHECK (status IN ('DRAFT', 'READY')),
        content_type text,
        byte_size integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        finalized_at timestamptz
      )`);

    await q.query(`
      CREATE TABLE listing_imports (
        id uuid PRIMARY KEY,
        seller_id uuid NOT NULL REFERENCES users(id),
        status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'RUNNING', 'COMPLETED', 'FAILED')),
        csv text NOT NULL,
        total_rows integer NOT NULL DEFAULT 0,
        processed_rows integer NOT NULL DEFAULT 0,
        created_count integer NOT NULL DEFAULT 0,
        error_count integer NOT NULL DEFAULT 0,
        failure text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`);
    await q.query(`CREATE INDEX listing_imports_seller_idx ON listing_imports (seller_id, created_at DESC)`);
    await q.query(`
      CREATE TABLE listing_import_errors (
        import_id uuid NOT NULL REFERENCES listing_imports(id) ON DELETE CASCADE,
        row_number integer NOT NULL,
        "column" text NOT NULL,
        message text NOT NULL,
        PRIMARY KEY (import_id, row_number, "column")
      )`);
    // A listing created by an import remembers its row: re-running a batch creates nothing twice.
    await q.query(`ALTER TABLE listings ADD COLUMN import_id uuid, ADD COLUMN import_row integer`);
    await q.query(`CREATE UNIQUE INDEX listings_import_row_key ON listings (import_id, import_row) WHERE import_id IS NOT NULL`);

    // Seller search: the text of the listed item and the seller's own fields, denormalised onto
    // the listing so the catalog tables need no text index of ours.
    await q.query(`ALTER TABLE listings ADD COLUMN search_text text NOT NULL DEFAULT ''`);
    await q.query(`CREATE INDEX listings_search_text_trgm_idx ON listings USING gin (search_text gin_trgm_ops) WHERE deleted_at IS NULL`);
    await q.query(`CREATE INDEX listings_seller_item_idx ON listings (seller_id, item_urn) WHERE deleted_at IS NULL`);

    await q.query(`
      CREATE TABLE delivery_options (
        id uuid PRIMARY KEY,
        seller_id uuid NOT NULL REFERENCES users(id),
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
        price integer NOT NULL CHECK (price >= 0),
        tracked boolean NOT NULL,
        countries text[] NOT NULL CHECK (cardinality(countries) > 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX delivery_options_seller_idx ON delivery_options (seller_id, created_at)`);

    // Bumped in the transaction of every change that affects a seller's stats; caches key on it.
    await q.query(`ALTER TABLE seller_accounts ADD COLUMN stats_version bigint NOT NULL DEFAULT 0`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE seller_accounts DROP COLUMN stats_version`);
    await q.query(`DROP TABLE delivery_options`);
    await q.query(`ALTER TABLE listings DROP COLUMN search_text, DROP COLUMN import_id, DROP COLUMN import_row`);
    await q.query(`DROP TABLE listing_import_errors`);
    await q.query(`DROP TABLE listing_imports`);
    await q.query(`DROP TABLE uploads`);
  }
}
