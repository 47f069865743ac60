import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The workflow-start outbox (docs/architecture.md, "Background work"): a service writes the
 * intent to start (or signal-with-start) a workflow in the transaction of its change; the
 * worker's dispatcher starts it. A trigger notifies the dispatcher at commit time.
 */
export class WorkflowStarts1733443200000 implements MigrationInterface {
  name = 'WorkflowStarts1733443200000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workflow_starts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        workflow_type text NOT NULL,
        workflow_id text NOT NULL,
        -- '' for the start itself; a signal name or a replay id when one workflow id takes
        -- several requests. Repeating a request in the same business event inserts nothing.
        request_key text NOT NULL DEFAULT '',
        args jsonb NOT NULL,
        -- { reusePolicy, searchAttributes: [{name, type, value}], signal: {name, args} }
        options jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        last_error text,
        -- A failed start waits (backing off) so it cannot hold up the rows behind it.
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (workflow_id, request_key)
      )`);
    await q.query(`CREATE INDEX workflow_starts_pending_idx ON workflow_starts (next_attempt_at, id) WHERE started_at IS NULL`);
    await q.query(`
      CREATE FUNCTION notify_workflow_starts() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('workflow_starts', '');
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER workflow_starts_notify AFTER INSERT ON workflow_starts
        FOR EACH STATEMENT EXECUTE FUNCTION notify_workflow_starts()`);
    // Completed purchases whose review window never started become start intents, so none is
    // lost; the window length is REVIEW_WINDOW_SECONDS' default (a migration has no config).
    // The purchases' own "window started" marker is then redundant: the outbox row records it.
    await q.query(`
      INSERT INTO workflow_starts (workflow_type, workflow_id, args, options)
      SELECT 'reviewWindowWorkflow', 'review-window:' || id,
             jsonb_build_array(jsonb_build_object('purchaseId', id, 'completedAt', to_char(completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'windowSeconds', 1209600)),
             '{"reusePolicy": "REJECT_DUPLICATE"}'
        FROM purchases WHERE status = 'COMPLETED' AND review_window_started_at IS NULL
      ON CONFLICT DO NOTHING`);
    await q.query(`ALTER TABLE purchases DROP COLUMN review_window_started_at`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE purchases ADD COLUMN review_window_started_at timestamptz`);
    await q.query(
      `CREATE INDEX purchases_review_window_pending_idx ON purchases (completed_at) WHERE status = 'COMPLETED' AND review_window_started_at IS NULL`,
    );
    await q.query(`DROP TRIGGER workflow_starts_notify ON workflow_starts`);
    await q.query(`DROP FUNCTION notify_workflow_starts()`);
    await q.query(`DROP TABLE workflow_starts`);
  }
}
