import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The alerts matcher writes notifications by the thousand (a listing of a popular card at a low
 * price fires every alert on it), so each row's write cost is the matcher's cost. Inserting
 * 100,000 rows took 3.4–4.4 s with the two foreign keys, 1.6–2.4 s without them, 1.1–1.8 s
 * without the text `dedupe_key` index as well (docs/alerts.md, "Matching"). So:
 *
 * - A price-alert notification is unique by (alert, listing, price), the index the matcher
 *   already probes for "told at this price or lower"; only watch notifications keep a
 *   `dedupe_key` (their key names the event that showed the change).
 * - No foreign keys: `user_id` is copied from an alert or a watch row, whose own keys hold it, and
 *   users are never deleted; a deleted alert's notifications are unlinked by
 *   `PriceAlerts.remove` in its transaction, as ON DELETE SET NULL did.
 * - `uuid_v7()`: the matcher inserts from its query in one statement, so the database makes the
 *   ids, time-ordered like `newId()` (the notifications list's cursor).
 */
export class NotificationsBulkWrites1733635000000 implements MigrationInterface {
  name = 'NotificationsBulkWrites1733635000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION uuid_v7() RETURNS uuid LANGUAGE sql VOLATILE AS $$
        -- RFC 9562: 48 bits of Unix milliseconds over a v4 UUID's random bits, version nibble 7.
        SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
                 PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
                 FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
      $$`);
    await q.query(`ALTER TABLE notifications DROP CONSTRAINT notifications_user_id_fkey`);
    await q.query(`ALTER TABLE notifications DROP CONSTRAINT notifications_alert_id_fkey`);
    await q.query(`ALTER TABLE notifications ALTER COLUMN dedupe_key DROP NOT NULL`);
    await q.query(`UPDATE notifications SET dedupe_key = NULL WHERE kind = 'PRICE_ALERT'`);
    await q.query(`DROP INDEX notifications_alert_idx`);
    await q.query(`CREATE UNIQUE INDEX notifications_alert_idx ON notifications (alert_id, listing_id, price) WHERE alert_id IS NOT NULL`);
    await q.query(
      `ALTER TABLE notifications ADD CONSTRAINT notifications_dedupe_by_kind CHECK ((kind = 'PRICE_ALERT') = (dedupe_key IS NULL))`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE notifications DROP CONSTRAINT notifications_dedupe_by_kind`);
    await q.query(`DROP INDEX notifications_alert_idx`);
    await q.query(`CREATE INDEX notifications_alert_idx ON notifications (alert_id, listing_id, price) WHERE alert_id IS NOT NULL`);
    await q.query(
      `UPDATE notifications SET dedupe_key = 'alert:' || coalesce(alert_id::text, id::text) || ':' || listing_id || ':' || price WHERE kind = 'PRICE_ALERT'`,
    );
    await q.query(`ALTER TABLE notifications ALTER COLUMN dedupe_key SET NOT NULL`);
    await q.query(`ALTER TABLE notifications ADD FOREIGN KEY (alert_id) REFERENCES price_alerts(id) ON DELETE SET NULL`);
    await q.query(`ALTER TABLE notifications ADD FOREIGN KEY (user_id) REFERENCES users(id)`);
    await q.query(`DROP FUNCTION uuid_v7()`);
  }
}
