import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What RETURN and REPLACEMENT outcomes record, and the recovery of platform refund losses
 * (docs/money.md): a REPLACEMENT adjustment moves no money (amount 0, no simulator refund), and
 * a RECOVERY transfer repays what the platform covered for a seller's refund.
 */
export class CaseOutcomeMoney1733500000000 implements MigrationInterface {
  name = 'CaseOutcomeMoney1733500000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE adjustments DROP CONSTRAINT adjustments_type_check`);
    await q.query(`ALTER TABLE adjustments ADD CONSTRAINT adjustments_type_check CHECK (type IN ('REFUND', 'REPLACEMENT'))`);
    await q.query(`ALTER TABLE adjustments DROP CONSTRAINT adjustments_amount_check`);
    await q.query(`ALTER TABLE adjustments ALTER COLUMN refund_id DROP NOT NULL`);
    // A refund moves money through the payment simulator; a replacement moves none.
    await q.query(`
      ALTER TABLE adjustments ADD CONSTRAINT adjustments_money_check CHECK (
        (type = 'REFUND' AND amount > 0 AND refund_id IS NOT NULL) OR (type = 'REPLACEMENT' AND amount = 0 AND refund_id IS NULL))`);
    await q.query(`ALTER TABLE transfers DROP CONSTRAINT transfers_type_check`);
    await q.query(`ALTER TABLE transfers ADD CONSTRAINT transfers_type_check CHECK (type IN ('TRANSFER', 'REVERSAL', 'RECOVERY'))`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM transfers WHERE type = 'RECOVERY'`);
    await q.query(`ALTER TABLE transfers DROP CONSTRAINT transfers_type_check`);
    await q.query(`ALTER TABLE transfers ADD CONSTRAINT transfers_type_check CHECK (type IN ('TRANSFER', 'REVERSAL'))`);
    await q.query(`DELETE FROM adjustments WHERE type = 'REPLACEMENT'`);
    await q.query(`ALTER TABLE adjustments DROP CONSTRAINT adjustments_money_check`);
    await q.query(`ALTER TABLE adjustments ALTER COLUMN refund_id SET NOT NULL`);
    await q.query(`ALTER TABLE adjustments ADD CONSTRAINT adjustments_amount_check CHECK (amount > 0)`);
    await q.query(`ALTER TABLE adjustments DROP CONSTRAINT adjustments_type_check`);
    await q.query(`ALTER TABLE adjustments ADD CONSTRAINT adjustments_type_check CHECK (type IN ('REFUND'))`);
  }
}
