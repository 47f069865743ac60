import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When the request holding an `Idempotency-Key` committed its effects: set by the request's own
 * transaction, just before its COMMIT (src/services/idempotency/idempotency-keys.ts), so it is
 * set exactly when the effects are. A claim that has it but no answer was applied by a process
 * that stopped before storing its answer: it must never be taken as abandoned and run again.
 */
export class IdempotencyCommitted1733563000000 implements MigrationInterface {
  name = 'IdempotencyCommitted1733563000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE idempotency_keys ADD COLUMN committed_at timestamptz`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE idempotency_keys DROP COLUMN committed_at`);
  }
}
