import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Saved searches, price alerts, the watchlist and notifications (docs/alerts.md).
 *
 * A saved search keeps the criteria of a catalog or a listing search as the route validated
 * them (`criteria`), so running it is that search. Price alerts and the watchlist are matched
 * against listing changes in the background, from the events outbox (docs/alerts.md, "Matching").
 */
export class Alerts1733620000000 implements MigrationInterface {
  name = 'Alerts1733620000000';

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

    // Price alerts are found from a listing, never scanned: by its item, or by its card (game,
    // lower(name)) for an alert on every printing, each ordered by threshold so that the range
    // `max_price >= price` is read off the index. The constraints are checked on those rows only.
    await q.query(`
      CREATE TABLE price_alerts (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id),
        item_urn text REFERENCES catalog_items(urn),
        game_urn text REFERENCES catalog_games(urn),
        card_name text,
        max_price integer NOT NULL CHECK (max_price > 0),
        min_condition text,
        languages text[],
        variants jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((item_urn IS NULL) <> (game_urn IS NULL AND card_name IS NULL)),
        CHECK ((game_urn IS NULL) = (card_name IS NULL))
      )`);
    await q.query(`CREATE INDEX price_alerts_user_idx ON price_alerts (user_id, id)`);
    await q.query(`CREATE INDEX price_alerts_item_idx ON price_alerts (item_urn, max_price) WHERE item_urn IS NOT NULL`);
    await q.query(`CREATE INDEX price_alerts_card_idx ON price_alerts (game_urn, lower(card_name), max_price) WHERE card_name IS NOT NULL`);
    await q.query(`ALTER TABLE notifications ADD FOREIGN KEY (alert_id) REFERENCES price_alerts(id) ON DELETE SET NULL`);
    // "Notified for this alert and listing at this price or lower already?": one index probe per fired alert.
    await q.query(`CREATE INDEX notifications_alert_idx ON notifications (alert_id, listing_id, price) WHERE alert_id IS NOT NULL`);
    // A watch keeps what the matcher last saw of its listing, so a drop, the last unit or the end
    // is told once, whatever the number of events that show it.
    await q.query(`
      CREATE TABLE watchlist (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id),
        listing_id uuid NOT NULL REFERENCES listings(id),
        seen_price integer NOT NULL,
        seen_available integer NOT NULL,
        seen_live boolean NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (user_id, listing_id)
      )`);
    await q.query(`CREATE INDEX watchlist_listing_idx ON watchlist (listing_id)`);
    // The matcher reads the events outbox beside the webhook fan-out, with a mark of its own.
    // Events already there count as matched (the default fills them without rewriting the
    // table); new ones arrive unmatched. The partial index holds only what is still to match.
    await q.query(`ALTER TABLE outbox_events ADD COLUMN alerts_matched_at timestamptz DEFAULT now()`);
    await q.query(`ALTER TABLE outbox_events ALTER COLUMN alerts_matched_at DROP DEFAULT`);
    await q.query(`CREATE INDEX outbox_events_alerts_pending_idx ON outbox_events (created_at, id) WHERE alerts_matched_at IS NULL`);
    // The e-mail digest: a user setting (on unless turned off), and each digest round's outcome,
    // so that a retried round answers the e-mail it queued rather than a second one.
    await q.query(`ALTER TABLE users ADD COLUMN alert_emails boolean NOT NULL DEFAULT true`);
    await q.query(`
      CREATE TABLE alert_digests (
        key text PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id),
        email_id uuid,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE alert_digests`);
    await q.query(`ALTER TABLE users DROP COLUMN alert_emails`);
    await q.query(`DROP INDEX outbox_events_alerts_pending_idx`);
    await q.query(`ALTER TABLE outbox_events DROP COLUMN alerts_matched_at`);
    await q.query(`DROP TABLE watchlist`);
    await q.query(`DROP TABLE notifications`);
    await q.query(`DROP TABLE price_alerts`);
    await q.query(`DROP TABLE saved_searches`);
  }
}
