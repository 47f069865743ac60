import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reviews become real: they now reference their order (the orders table exists since the
 * checkout migration), a deleted review stays as a tombstone (`deleted_at`) so that its
 * (order, reviewer) slot stays used, user aggregates can never go negative, and each completed purchase
 * records when its review window workflow was started, so windows Temporal could not start at
 * completion are found and started later. See docs/reviews.md.
 */
export class Reviews1733097600000 implements MigrationInterface {
  name = 'Reviews1733097600000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE reviews ADD CONSTRAINT reviews_order_fk FOREIGN KEY (order_id) REFERENCES orders(id)`);
    await q.query(`ALTER TABLE reviews ADD COLUMN deleted_at timestamptz`);
    await q.query(`ALTER TABLE users ADD CONSTRAINT users_review_aggregates_non_negative CHECK (reviews_count >= 0 AND rating_sum >= 0)`);
    await q.query(`ALTER TABLE purchases ADD COLUMN review_window_started_at timestamptz`);
    // The reconciliation's work list: completed purchases whose window has not been started yet.
    await q.query(
      `CREATE INDEX purchases_review_window_pending_idx ON purchases (completed_at) WHERE status = 'COMPLETED' AND review_window_started_at IS NULL`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX purchases_review_window_pending_idx`);
    await q.query(`ALTER TABLE purchases DROP COLUMN review_window_started_at`);
    await q.query(`ALTER TABLE users DROP CONSTRAINT users_review_aggregates_non_negative`);
    await q.query(`ALTER TABLE reviews DROP COLUMN deleted_at`);
    await q.query(`ALTER TABLE reviews DROP CONSTRAINT reviews_order_fk`);
  }
}
