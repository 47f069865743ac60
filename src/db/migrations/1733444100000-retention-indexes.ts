import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for the retention pass (docs/operations.md, "Retention"): each covers exactly the
 * rows it may delete, ordered by the timestamp it compares with the cutoff.
 */
export class RetentionIndexes1733444100000 implements MigrationInterface {
  name = 'RetentionIndexes1733444100000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX workflow_starts_started_idx ON workflow_starts (started_at) WHERE started_at IS NOT NULL`);
    await q.query(`CREATE INDEX webhook_attempts_attempted_idx ON webhook_attempts (attempted_at)`);
    await q.query(`CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (created_at) WHERE status <> 'PENDING'`);
    await q.query(`CREATE INDEX outbox_events_dispatched_idx ON outbox_events (dispatched_at) WHERE dispatched_at IS NOT NULL`);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const index of [
      'outbox_events_dispatched_idx',
      'webhook_deliveries_finished_idx',
      'webhook_attempts_attempted_idx',
      'workflow_starts_started_idx',
    ]) {
      await q.query(`DROP INDEX ${index}`);
    }
  }
}
