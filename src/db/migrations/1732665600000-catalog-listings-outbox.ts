import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The shared core of the marketplace: the catalog hierarchy (games → series → sets → items,
 * keyed by URN), listings with their stock and holds, public profile fields on users, and the
 * webhook event outbox. Search indexes and area-specific tables come in later migrations.
 */
export class CatalogListingsOutbox1732665600000 implements MigrationInterface {
  name = 'CatalogListingsOutbox1732665600000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE users
        ADD COLUMN avatar_url text,
        ADD COLUMN cover_url text,
        ADD COLUMN profile text,
        ADD COLUMN reviews_count integer NOT NULL DEFAULT 0,
        ADD COLUMN rating_sum integer NOT NULL DEFAULT 0,
        ADD COLUMN sales_count integer NOT NULL DEFAULT 0,
        ADD COLUMN purchases_count integer NOT NULL DEFAULT 0`);

    await q.query(`
      CREATE TABLE catalog_games (
        urn text PRIMARY KEY,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE catalog_series (
        urn text PRIMARY KEY,
        game_urn text NOT NULL REFERENCES catalog_games(urn),
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX catalog_series_game_idx ON catalog_series (game_urn)`);
    await q.query(`
      CREATE TABLE catalog_sets (
        urn text PRIMARY KEY,
        series_urn text NOT NULL REFERENCES catalog_series(urn),
        game_urn text NOT NULL REFERENCES catalog_games(urn),
        name text NOT NULL,
        printed_count integer,
        total_count integer,
        "references" text[] NOT NULL DEFAULT '{}',
        size integer,
        symbol_url text,
        released text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX catalog_sets_series_idx ON catalog_sets (series_urn)`);
    await q.query(`
      CREATE TABLE catalog_items (
        urn text PRIMARY KEY CHECK (urn !~ '/$'),
        slug text NOT NULL UNIQUE,
        type text NOT NULL DEFAULT 'card',
        game_urn text NOT NULL REFERENCES catalog_games(urn),
        series_urn text NOT NULL REFERENCES catalog_series(urn),
        set_urn text NOT NULL REFERENCES catalog_sets(urn),
        title text NOT NULL,
        name text NOT NULL,
        rarity text NOT NULL DEFAULT '',
        number text NOT NULL DEFAULT '',
        description text NOT NULL DEFAULT '',
        images jsonb NOT NULL DEFAULT '[]',
        alternatives jsonb NOT NULL DEFAULT '[]',
        metadata jsonb NOT NULL DEFAULT '[]',
        reference_price integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX catalog_items_set_idx ON catalog_items (set_urn)`);

    await q.query(`
      CREATE TABLE listings (
        id uuid PRIMARY KEY,
        seller_id uuid NOT NULL REFERENCES users(id),
        item_urn text NOT NULL,
        condition text NOT NULL,
        language text NOT NULL,
        price integer NOT NULL CHECK (price >= 0),
        quantity integer NOT NULL CHECK (quantity >= 0),
        reserved integer NOT NULL DEFAULT 0,
        comment text NOT NULL DEFAULT '',
        grading_provider text,
        grading_score text,
        grading_number text,
        notes varchar(255),
        reference varchar(255),
        variants jsonb NOT NULL DEFAULT '[]',
        hidden boolean NOT NULL DEFAULT false,
        valid boolean NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz,
        CONSTRAINT listings_reserved_within_quantity CHECK (reserved >= 0 AND reserved <= quantity)
      )`);
    // Buyer-facing listing search: live, visible, in stock, by item, cheapest first.
    await q.query(`
      CREATE INDEX listings_item_live_idx ON listings (item_urn, price)
        WHERE deleted_at IS NULL AND hidden = false AND quantity > reserved`);
    await q.query(`CREATE INDEX listings_seller_idx ON listings (seller_id, created_at DESC) WHERE deleted_at IS NULL`);

    await q.query(`
      CREATE TABLE listing_attachments (
        id uuid PRIMARY KEY,
        listing_id uuid NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
        image_id text NOT NULL,
        url text NOT NULL,
        position integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX listing_attachments_listing_idx ON listing_attachments (listing_id, position)`);

    await q.query(`
      CREATE TABLE listing_holds (
        id uuid PRIMARY KEY,
        listing_id uuid NOT NULL REFERENCES listings(id),
        checkout_id uuid NOT NULL,
        quantity integer NOT NULL CHECK (quantity > 0),
        expires_at timestamptz NOT NULL,
        released_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX listing_holds_active_idx ON listing_holds (listing_id) WHERE released_at IS NULL`);
    await q.query(`CREATE INDEX listing_holds_checkout_idx ON listing_holds (checkout_id)`);

    await q.query(`
      CREATE TABLE outbox_events (
        id uuid PRIMARY KEY,
        seller_id uuid NOT NULL,
        type text NOT NULL,
        data jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        dispatched_at timestamptz
      )`);
    await q.query(`CREATE INDEX outbox_events_pending_idx ON outbox_events (created_at) WHERE dispatched_at IS NULL`);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'outbox_events',
      'listing_holds',
      'listing_attachments',
      'listings',
      'catalog_items',
      'catalog_sets',
      'catalog_series',
      'catalog_games',
    ]) {
      await q.query(`DROP TABLE ${table}`);
    }
    await q.query(`
      ALTER TABLE users DROP COLUMN avatar_url, DROP COLUMN cover_url, DROP COLUMN profile, DROP COLUMN reviews_count,
        DROP COLUMN rating_sum, DROP COLUMN sales_count, DROP COLUMN purchases_count`);
  }
}
