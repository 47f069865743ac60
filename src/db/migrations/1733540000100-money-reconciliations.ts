import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the money reconciler did (src/services/money/reconciler.ts): one row per stuck payout or
 * release it finished or failed to finish, for operators (`GET /operator/money/stuck`). The
 * indexes serve its look-ups of overdue payouts and releases.
 */
export class MoneyReconciliations1733540000100 implements MigrationInterface {
  name = 'MoneyReconciliations1733540000100';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE money_reconciliations (
        id uuid PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('payout', 'release')),
        subject_id uuid NOT NULL,
        seller_id uuid NOT NULL,
        before_status text NOT NULL,
        after_status text,
        error text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX money_reconciliations_created_idx ON money_reconciliations (created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX payouts_unsettled_idx ON payouts (updated_at) WHERE status IN ('CREATED', 'IN_TRANSIT')`);
    await q.query(`CREATE INDEX transfers_pending_release_idx ON transfers (available_on) WHERE type = 'TRANSFER' AND status = 'PENDING'`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX transfers_pending_release_idx`);
    await q.query(`DROP INDEX payouts_unsettled_idx`);
    await q.query(`DROP TABLE money_reconciliations`);
  }
}
