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
    // What fired is recorded as it was (price, previous price, the alert's threshold then), so a
    // notification reads the same after the listing or the alert changed. `dedupe_key` makes the
    // matcher's writes idempotent. Ids are UUID v7: the cursor of the newest-first list.
    await q.query(`
      CREATE TABLE notifications (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id),
        kind text NOT NULL CHECK (kind IN ('PRICE_ALERT', 'PRICE_DROP', 'ONE_LEFT', 'GONE')),
        alert_id uuid,
        listing_id uuid NOT NULL,
        item_urn text NOT NULL,
        price integer NOT NULL,
        previous_price integer,
        max_price integer,
        dedupe_key text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        read_at timestamptz,
        emailed_at timestamptz
      )`);
    await q.query(`CREATE INDEX notifications_user_idx ON notifications (user_id, id)`);
    await q.query(`CREATE INDEX notifications_unread_idx ON notifications (user_id, id) WHERE read_at IS NULL`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE notifications`);
    await q.query(`DROP TABLE saved_searches`);
  }
}
