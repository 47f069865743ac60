import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Orders cancelled before shipment, and the buyer's request to cancel (docs/money.md). */
export class OrderCancellation1733443900200 implements MigrationInterface {
  name = 'OrderCancellation1733443900200';

  public async up(q: QueryRunner): Promise<void> {
    for (const table of ['orders', 'order_items']) {
      await q.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_status_check`);
      await q.query(
        `ALTER TABLE ${table} ADD CONSTRAINT ${table}_status_check CHECK (status IN ('ACCEPTED', 'SHIPPED', 'RECEIVED', 'CANCELLED'))`,
      );
    }
    await q.query(`ALTER TABLE orders ADD COLUMN cancellation_requested_at timestamptz, ADD COLUMN cancelled_at timestamptz`);
    await q.query(`ALTER TABLE adjustments ADD COLUMN reason text NOT NULL DEFAULT 'CASE' CHECK (reason IN ('CASE', 'CANCELLATION'))`);
    // One cancellation refund per order.
    await q.query(`CREATE UNIQUE INDEX adjustments_one_cancellation ON adjustments (order_id) WHERE reason = 'CANCELLATION'`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX adjustments_one_cancellation`);
    await q.query(`ALTER TABLE adjustments DROP COLUMN reason`);
    await q.query(`ALTER TABLE orders DROP COLUMN cancellation_requested_at, DROP COLUMN cancelled_at`);
    for (const table of ['orders', 'order_items']) {
      await q.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_status_check`);
      await q.query(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_status_check CHECK (status IN ('ACCEPTED', 'SHIPPED', 'RECEIVED'))`);
    }
  }
}
