import type { DataSource } from 'typeorm';
import { newId } from '../../src/ids';
import { commitCheckout } from '../../src/services/checkout/commit';
import { offerChangeStarts } from '../../src/modules/offers';
import { STORED_ADDRESS } from './shop';

/**
 * A paid checkout of one seller's order committed through the real commit (purchase, order,
 * invoice and every counter it maintains), without listings or Temporal: for tests about what
 * a purchase changes rather than about checkout itself.
 */
export async function commitPaidCheckout(
  db: DataSource,
  buyerId: string,
  sellerId: string,
  total: number,
): Promise<{ purchaseId: string; orderId: string }> {
  const basketId = newId();
  const sessionId = newId();
  await db.query(`INSERT INTO baskets (id, user_id, status) VALUES ($1, $2, 'ORDERED')`, [basketId, buyerId]);
  await db.query(
    `INSERT INTO checkout_sessions (id, basket_id, buyer_id, status, success_url, lines, sellers, subtotal, delivery, fee, total, delivery_address, expires_at)
     VALUES ($1, $2, $3, 'PAID', 'http://localhost/ok', '[]', '[]', $4, 0, 0, $4, $5, now())`,
    [sessionId, basketId, buyerId, total, JSON.stringify(STORED_ADDRESS)],
  );
  const purchaseId = await db.transaction((tx) =>
    commitCheckout(
      tx,
      {
        id: sessionId,
        basketId,
        buyerId,
        lines: [],
        sellers: [
          { sellerId, subtotal: total, deliveryOption: { id: newId(), name: 'Post', price: 0, tracked: false }, deliveryCharge: 0, total },
        ],
        subtotal: total,
        delivery: 0,
        fee: 0,
        total,
        deliveryAddress: STORED_ADDRESS,
      },
      { sellerFeeBps: 500, offerChanges: offerChangeStarts },
    ),
  );
  const [order] = await db.query(`SELECT id FROM orders WHERE purchase_id = $1`, [purchaseId]);
  return { purchaseId, orderId: order.id };
}
