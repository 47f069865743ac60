import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Wants lists and their basket optimizations (docs/wants.md).
 *
 * A line names one catalog item (`item_urn`) or a card by name within a game (`game_urn` and
 * `card_name`, any printing): exactly one of the two. Names match catalog items case-blind, so
 * `catalog_items (game_urn, lower(name))` serves both the availability of a line and the
 * optimizer's candidate search without scanning the catalog.
 *
 * An optimization keeps what was asked (`request`) and, once solved, the whole answer
 * (`result`): it is read back as it was, even after the market moved on.
 */
export class Wants1733580000000 implements MigrationInterface {
  name = 'Wants1733580000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE wants_lists (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id),
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX wants_lists_user_idx ON wants_lists (user_id, created_at, id)`);
    // Names are unique per user; the service checks first (to answer 409), this holds under races.
    await q.query(`CREATE UNIQUE INDEX wants_lists_user_name_idx ON wants_lists (user_id, name)`);
    await q.query(`
      CREATE TABLE wants_lines (
        id uuid PRIMARY KEY,
        list_id uuid NOT NULL REFERENCES wants_lists(id) ON DELETE CASCADE,
        item_urn text REFERENCES catalog_items(urn),
        game_urn text REFERENCES catalog_games(urn),
        card_name text,
        quantity integer NOT NULL CHECK (quantity BETWEEN 1 AND 99),
        min_condition text,
        languages text[],
        variants jsonb,
        max_price integer CHECK (max_price > 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((item_urn IS NULL) <> (game_urn IS NULL AND card_name IS NULL)),
        CHECK ((game_urn IS NULL) = (card_name IS NULL))
      )`);
    await q.query(`CREATE INDEX wants_lines_list_idx ON wants_lines (list_id, created_at, id)`);
    await q.query(`CREATE INDEX catalog_items_game_name_idx ON catalog_items (game_urn, lower(name))`);
    await q.query(`
      CREATE TABLE wants_optimizations (
        id uuid PRIMARY KEY,
        list_id uuid NOT NULL REFERENCES wants_lists(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users(id),
        status text NOT NULL CHECK (status IN ('RUNNING', 'DONE', 'FAILED')),
        request jsonb NOT NULL,
        result jsonb,
        failure text,
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`);
    await q.query(`CREATE INDEX wants_optimizations_list_idx ON wants_optimizations (list_id, created_at)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE wants_optimizations`);
    await q.query(`DROP INDEX catalog_items_game_name_idx`);
    await q.query(`DROP TABLE wants_lines`);
    await q.query(`DROP TABLE wants_lists`);
  }
}
