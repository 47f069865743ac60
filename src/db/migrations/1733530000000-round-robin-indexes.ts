import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outboxes' round-robin claims (src/db/round-robin.ts) walk the fairness keys with pending
 * rows and read each key's oldest few, from an index on (key, order) over the pending rows only.
 * The indexes the earlier claims ranked from, over every pending row, are then unused.
 */
export class RoundRobinIndexes1733530000000 implements MigrationInterface {
  name = 'RoundRobinIndexes1733530000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX workflow_starts_fair_pending_idx ON workflow_starts (fairness_key, id) INCLUDE (next_attempt_at) WHERE started_at IS NULL`,
    );
    await q.query(`DROP INDEX workflow_starts_pending_idx`);
    await q.query(`CREATE INDEX outbox_events_fair_pending_idx ON outbox_events (seller_id, created_at, id) WHERE dispatched_at IS NULL`);
    await q.query(`DROP INDEX outbox_events_pending_idx`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX outbox_events_pending_idx ON outbox_events (created_at) WHERE dispatched_at IS NULL`);
    await q.query(`DROP INDEX outbox_events_fair_pending_idx`);
    await q.query(`CREATE INDEX workflow_starts_pending_idx ON workflow_starts (next_attempt_at, id) WHERE started_at IS NULL`);
    await q.query(`DROP INDEX workflow_starts_fair_pending_idx`);
  }
}
