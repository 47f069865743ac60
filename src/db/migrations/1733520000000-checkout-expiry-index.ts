import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The hold expiry sweep's question, "which open sessions have run out, oldest first"
 * (docs/checkout-orders.md, "Hold expiry"), answered from the few open sessions only.
 */
export class CheckoutExpiryIndex1733520000000 implements MigrationInterface {
  name = 'CheckoutExpiryIndex1733520000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX checkout_sessions_open_expiry_idx ON checkout_sessions (expires_at) WHERE status = 'OPEN'`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX checkout_sessions_open_expiry_idx`);
  }
}
