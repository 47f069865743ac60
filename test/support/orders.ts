import type { DataSource } from 'typeorm';
import { newId } from '../../src/ids';
import { STORED_ADDRESS } from './shop';

export interface OrderFixture {
  purchaseId: string;
  orderIds: string[];
}

/**
 * A purchase with one order per seller, written straight into the database (basket, checkout
 * session, purchase, orders) in a given state: for tests about what happens after checkout,
 * which need neither listings nor Temporal to get there.
 */
export async function insertPurchase(
  db: DataSource,
  options: {
    buyerId: string;
    sellerIds: string[];
    orderStatus?: 'ACCEPTED' | 'SHIPPED' | 'RECEIVED';
    purchaseStatus?: 'PAID' | 'COMPLETED';
  },
): Promise<OrderFixture> {
  const { buyerId, sellerIds, orderStatus = 'RECEIVED', purchaseStatus = 'COMPLETED' } = options;
  const basketId = newId();
  const checkoutId = newId();
  const purchaseId = newId();
  await db.query(`INSERT INTO baskets (id, user_id, status) VALUES ($1, $2, 'ORDERED')`, [basketId, buyerId]);
  await db.query(
    `INSERT INTO checkout_sessions (id, basket_id, buyer_id, status, success_url, lines, sellers, subtotal, delivery, fee, total, delivery_address, expires_at, purchase_id)
     VALUES ($1, $2, $3, 'PAID', 'http://localhost/done', '[]', '[]', 0, 0, 0, 0, $4, now(), $5)`,
    [checkoutId, basketId, buyerId, JSON.stringify(STORED_ADDRESS), purchaseId],
  );
  await db.query(
    `INSERT INTO purchases (id, buyer_id, checkout_id, status, subtotal, delivery, fee, total, delivery_address, completed_at)
     VALUES ($1, $2, $3, $4, 0, 0, 0, 0, $5, CASE WHEN $4 = 'COMPLETED' THEN now() END)`,
    [purchaseId, buyerId, checkoutId, purchaseStatus, JSON.stringify(STORED_ADDRESS)],
  );
  const orderIds: string[] = [];
  for (const sellerId of sellerIds) {
    const orderId = newId();
    await db.query(
      `INSERT INTO orders (id, purchase_id, seller_id, buyer_id, status, subtotal, delivery_charge, total, delivery_option)
       VALUES ($1, $2, $3, $4, $5, 0, 0, 0, '{}')`,
      [orderId, purchaseId, sellerId, buyerId, orderStatus],
    );
    orderIds.push(orderId);
  }
  return { purchaseId, orderIds };
}
