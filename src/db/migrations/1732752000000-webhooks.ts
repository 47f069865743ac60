import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks: sellers' endpoints, one delivery per (event, endpoint), and every HTTP attempt of
 * it. A trigger on the event outbox notifies the dispatcher at commit time, so events leave
 * without waiting for the next poll.
 */
export class Webhooks1732752000000 implements MigrationInterface {
  name = 'Webhooks1732752000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY,
        seller_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        url text NOT NULL,
        description text NOT NULL DEFAULT '',
        subscriptions text[] NOT NULL DEFAULT '{}',
        headers jsonb NOT NULL DEFAULT '{}',
        enabled boolean NOT NULL,
        disabled_reason text,
        secret_encrypted text NOT NULL,
        failing_since timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX webhook_endpoints_seller_idx ON webhook_endpoints (seller_id, created_at)`);

    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY,
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        event_id uuid NOT NULL REFERENCES outbox_events (id),
        event_type text NOT NULL,
        status text NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_attempt_at timestamptz,
        delivered_at timestamptz,
        CONSTRAINT webhook_deliveries_event_endpoint_key UNIQUE (event_id, endpoint_id)
      )`);
    await q.query(`CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at)`);

    await q.query(`
      CREATE TABLE webhook_attempts (
        id uuid PRIMARY KEY,
        delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        attempted_at timestamptz NOT NULL,
        succeeded boolean NOT NULL,
        status_code integer,
        latency_ms integer NOT NULL,
        error text,
        response_excerpt text
      )`);
    await q.query(`CREATE INDEX webhook_attempts_endpoint_idx ON webhook_attempts (endpoint_id, attempted_at)`);

    await q.query(`
      CREATE FUNCTION notify_outbox_events() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('outbox_events', '');
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER outbox_events_notify AFTER INSERT ON outbox_events
        FOR EACH STATEMENT EXECUTE FUNCTION notify_outbox_events()`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER outbox_events_notify ON outbox_events`);
    await q.query(`DROP FUNCTION notify_outbox_events()`);
    for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhook_endpoints']) {
      await q.query(`DROP TABLE ${table}`);
    }
  }
}
