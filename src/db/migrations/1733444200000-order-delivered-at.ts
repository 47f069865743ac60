import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When the carrier reported an order's last shipment delivered (docs/sellers-operators.md,
 * "Tracking"): the auto-receipt deadline is counted from it as well as from the shipping.
 */
export class OrderDeliveredAt1733444200000 implements MigrationInterface {
  name = 'OrderDeliveredAt1733444200000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE orders ADD COLUMN delivered_at timestamptz`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE orders DROP COLUMN delivered_at`);
  }
}
