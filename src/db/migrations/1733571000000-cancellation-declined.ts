import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A buyer's cancellation request is answered: by the cancellation itself (`cancelled_at`), or
 * declined, explicitly or by shipping (`cancellation_declined_at`); order-machine.ts
 * `CancellationRequestStatus`. Requests already answered by a shipment count as declined then.
 */
export class CancellationDeclined1733571000000 implements MigrationInterface {
  name = 'CancellationDeclined1733571000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE orders ADD COLUMN cancellation_declined_at timestamptz`);
    await q.query(
      `UPDATE orders o SET cancellation_declined_at = s.first
         FROM (SELECT order_id, min(created_at) AS first FROM shipments GROUP BY order_id) s
        WHERE s.order_id = o.id AND o.cancellation_requested_at IS NOT NULL AND o.cancelled_at IS NULL`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE orders DROP COLUMN cancellation_declined_at`);
  }
}
