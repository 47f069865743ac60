import type { EntityManager } from 'typeorm';
import { emitEvents } from '../events/outbox';

/**
 * ORDER_UPDATED with the order's current items: emitted by every order action (order-engine.ts),
 * tracking changes (shipment-tracking.ts) and a refund that closes the order (money/refunds.ts).
 */
export async function emitOrderUpdated(tx: EntityManager, order: { id: string; seller_id: string }): Promise<void> {
  const items: Array<{ listing_id: string; urn: string; price: number; quantity: number }> = await tx.query(
    `SELECT listing_id, urn, price, quantity FROM order_items WHERE order_id = $1 ORDER BY created_at, id`,
    [order.id],
  );
  const [{ updated_at }]: [{ updated_at: Date }] = await tx.query(`SELECT updated_at FROM orders WHERE id = $1`, [order.id]);
  await emitEvents(tx, 'ORDER_UPDATED', [
    {
      sellerId: order.seller_id,
      createdAt: updated_at.toISOString(),
      orderId: order.id,
      listings: items.map((i) => ({ urn: i.urn, listingId: i.listing_id, quantity: i.quantity, price: i.price })),
    },
  ]);
}
