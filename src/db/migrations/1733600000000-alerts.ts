import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Saved searches, price alerts, the watchlist and notifications (docs/alerts.md).
 *
 * A saved search keeps the criteria of a catalog or a listing search as the route validated
 * them (`criteria`), so running it is that search.
 */
export class Alerts1733600000000 implements MigrationInterface {
  name = 'Alerts1733600000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE saved_searches (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id),
        name text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('catalog', 'listings')),
        criteria jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX saved_searches_user_idx ON saved_searches (user_id, id)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE saved_searches`);
  }
}
