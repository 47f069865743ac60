import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Refund caps the database enforces (docs/money.md "How much"): what has been refunded of an
 * order, of each of its lines and of its delivery charge, each checked against what was paid for
 * it. A refund adds to these with `UPDATE … SET refunded = refunded + x`, which reads the latest
 * committed row after any lock wait, so two refunds racing cannot together pass a cap: the later
 * one fails its CHECK. Orders whose refunds reach their total close as REFUNDED (order-machine.ts).
 */
export class RefundCaps1733540000000 implements MigrationInterface {
  name = 'RefundCaps1733540000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE orders ADD COLUMN refunded integer NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE orders ADD COLUMN delivery_refunded integer NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE order_items ADD COLUMN refunded integer NOT NULL DEFAULT 0`);
    // What was refunded so far: the adjustments. An order refunded in full had every line and its
    // delivery refunded; earlier partial refunds named no line, so they stay on the order only.
    await q.query(`UPDATE orders o SET refunded = a.sum FROM (SELECT order_id, sum(amount)::int AS sum FROM adjustments GROUP BY order_id) a
                    WHERE a.order_id = o.id`);
    await q.query(`UPDATE orders SET delivery_refunded = delivery_charge WHERE refunded >= total AND total > 0`);
    await q.query(
      `UPDATE order_items i SET refunded = i.price * i.quantity FROM orders o WHERE o.id = i.order_id AND o.refunded >= o.total AND o.total > 0`,
    );
    await q.query(`ALTER TABLE orders ADD CONSTRAINT orders_refunded_cap CHECK (refunded >= 0 AND refunded <= total)`);
    await q.query(
      `ALTER TABLE orders ADD CONSTRAINT orders_delivery_refunded_cap CHECK (delivery_refunded >= 0 AND delivery_refunded <= delivery_charge)`,
    );
    await q.query(`ALTER TABLE order_items ADD CONSTRAINT order_items_refunded_cap CHECK (refunded >= 0 AND refunded <= price * quantity)`);
    for (const table of ['orders', 'order_items']) {
      await q.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_status_check`);
      await q.query(
        `ALTER TABLE ${table} ADD CONSTRAINT ${table}_status_check CHECK (status IN ('ACCEPTED', 'SHIPPED', 'RECEIVED', 'CANCELLED', 'REFUNDED'))`,
      );
    }
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const table of ['orders', 'order_items']) {
      await q.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_status_check`);
      await q.query(
        `ALTER TABLE ${table} ADD CONSTRAINT ${table}_status_check CHECK (status IN ('ACCEPTED', 'SHIPPED', 'RECEIVED', 'CANCELLED'))`,
      );
    }
    await q.query(`ALTER TABLE order_items DROP COLUMN refunded`);
    await q.query(`ALTER TABLE orders DROP COLUMN delivery_refunded`);
    await q.query(`ALTER TABLE orders DROP COLUMN refunded`);
  }
}
