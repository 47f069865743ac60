import type { DataSource } from 'typeorm';
import { newId } from '../../src/ids';
import { openCase, type CaseRequest, type OpenedCase } from '../../src/services/cases/case-opening';
import { STORED_ADDRESS } from './shop';
import { insertListing, seedCatalog } from './fixtures';

export interface PaidOrder {
  purchaseId: string;
  orderId: string;
  itemIds: string[];
}

/**
 * A paid order of one seller to one buyer, written directly (basket → checkout session →
 * purchase → order → items), for tests about cases rather than checkout. One item per quantity.
 */
export async function insertPaidOrder(db: DataSource, buyerId: string, sellerId: string, quantities = [1]): Promise<PaidOrder> {
  const { items } = await seedCatalog(db, { names: quantities.map((_, i) => `Disputed${i}`) });
  const basketId = newId();
  const checkoutId = newId();
  const purchaseId = newId();
  const orderId = newId();
  const total = quantities.reduce((sum, q) => sum + q * 1000, 0);
  await db.query(`INSERT INTO baskets (id, user_id, status) VALUES ($1, $2, 'ORDERED')`, [basketId, buyerId]);
  await db.query(
    `INSERT INTO checkout_sessions (id, basket_id, buyer_id, status, success_url, lines, sellers, subtotal, delivery, fee, total, delivery_address, expires_at, purchase_id)
     VALUES ($1, $2, $3, 'PAID', 'http://localhost/ok', '[]', '[]', $4, 0, 0, $4, $5, now(), $6)`,
    [checkoutId, basketId, buyerId, total, JSON.stringify(STORED_ADDRESS), purchaseId],
  );
  await db.query(
    `INSERT INTO purchases (id, buyer_id, checkout_id, status, subtotal, delivery, fee, total, delivery_address)
     VALUES ($1, $2, $3, 'PAID', $4, 0, 0, $4, $5)`,
    [purchaseId, buyerId, checkoutId, total, JSON.stringify(STORED_ADDRESS)],
  );
  await db.query(
    `INSERT INTO orders (id, purchase_id, seller_id, buyer_id, status, subtotal, delivery_charge, total, delivery_option)
     VALUES ($1, $2, $3, $4, 'SHIPPED', $5, 0, $5, '{}')`,
    [orderId, purchaseId, sellerId, buyerId, total],
  );
  const itemIds: string[] = [];
  for (const [i, quantity] of quantities.entries()) {
    const listing = await insertListing(db, { sellerId, itemUrn: items[i]!.urn, quantity: 0 });
    const id = newId();
    await db.query(
      `INSERT INTO order_items (id, order_id, listing_id, urn, price, quantity, condition, language, status)
       VALUES ($1, $2, $3, $4, 1000, $5, 'NEAR_MINT', 'en', 'SHIPPED')`,
      [id, orderId, listing.id, items[i]!.urn, quantity],
    );
    itemIds.push(id);
  }
  return { purchaseId, orderId, itemIds };
}

/** Opens a case through the one case-opening path, without starting its workflow. */
export async function insertCase(
  db: DataSource,
  orderId: string,
  party: 'BUYER' | 'SELLER',
  request: Partial<CaseRequest> & Pick<CaseRequest, 'items'>,
): Promise<OpenedCase> {
  return db.transaction(async (tx) => {
    const [order] = await tx.query(`SELECT id, purchase_id, buyer_id, seller_id FROM orders WHERE id = $1 FOR UPDATE`, [orderId]);
    return openCase(tx, order, party, { reason: 'DAMAGED', comment: '', outcomes: [], ...request });
  });
}
