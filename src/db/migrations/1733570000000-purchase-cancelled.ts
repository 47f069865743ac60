import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A purchase nothing of which was sold (every order cancelled or refunded in full, no case open)
 * ends CANCELLED, and its buyer fee is refunded with it (docs/money.md "Buyer fee").
 * `fee_refunded` is that refund, capped by the fee the buyer paid.
 */
export class PurchaseCancelled1733570000000 implements MigrationInterface {
  name = 'PurchaseCancelled1733570000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE purchases DROP CONSTRAINT purchases_status_check`);
    await q.query(`ALTER TABLE purchases ADD CONSTRAINT purchases_status_check CHECK (status IN ('PAID', 'COMPLETED', 'CANCELLED'))`);
    await q.query(`ALTER TABLE purchases ADD COLUMN fee_refunded integer NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE purchases ADD CONSTRAINT purchases_fee_refunded_cap CHECK (fee_refunded >= 0 AND fee_refunded <= fee)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE purchases DROP COLUMN fee_refunded`);
    await q.query(`UPDATE purchases SET status = 'PAID' WHERE status = 'CANCELLED'`);
    await q.query(`ALTER TABLE purchases DROP CONSTRAINT purchases_status_check`);
    await q.query(`ALTER TABLE purchases ADD CONSTRAINT purchases_status_check CHECK (status IN ('PAID', 'COMPLETED'))`);
  }
}
