import type { EntityManager } from 'typeorm';
import { newId } from '../../ids';
import type { DeliveryAddress, DeliveryChoice, PricedLine } from '../basket/pricing';
import { recordSales } from '../catalog/sales-ledger';
import { DomainError } from '../errors';
import { emitEvents, type OrderEventData } from '../events/outbox';
import { postPayment } from '../money/postings';
import { commitHolds } from './holds';
import { noticeOpenOffers, offerPaid, type OfferChangeStarts } from '../offers/offer-rows';
import { ORDER_INITIAL_STATUS, PURCHASE_INITIAL_STATUS } from '../../domain/orders/order-machine';

/** What a checkout session froze at checkout time: the buyer pays exactly this. */
export interface SessionSnapshot {
  id: string;
  /** Null for the checkout of an accepted offer, which has no basket. */
  basketId: string | null;
  /** The accepted offer this checkout pays, if any (docs/offers.md). */
  offerId?: string | null;
  buyerId: string;
  lines: PricedLine[];
  sellers: Array<{ sellerId: string; subtotal: number; deliveryOption: DeliveryChoice; deliveryCharge: number; total: number }>;
  subtotal: number;
  delivery: number;
  fee: number;
  total: number;
  deliveryAddress: DeliveryAddress;
}

/**
 * Turns a paid checkout into a purchase with one seller order per seller. Runs inside the
 * transaction that moved the session OPEN → PAID, which is the single gate making it happen
 * exactly once: stock is decremented from the holds, holds are released, the sale is entered
 * in the sales ledger, the payment is posted to the money ledger, the invoice is issued and one
 * ORDER_CREATED per order goes to the outbox.
 */
export async function commitCheckout(
  tx: EntityManager,
  session: SessionSnapshot,
  options: { sellerFeeBps: number; offerChanges: OfferChangeStarts },
): Promise<string> {
  // A seller suspended after this checkout was priced: its payment is refused (docs/sellers-operators.md).
  const suspended: Array<{ id: string }> = await tx.query(
    `SELECT user_id AS id FROM seller_accounts WHERE user_id = ANY($1) AND status <> 'ACTIVE'`,
    [session.sellers.map((s) => s.sellerId)],
  );
  if (suspended.length > 0) {
    const listingIds = session.lines.filter((l) => suspended.some((s) => s.id === l.sellerId)).map((l) => l.listingId);
    throw new DomainError('conflict', 'listings-unavailable', 'A seller of this checkout can no longer sell.', { listingIds });
  }
  const purchaseId = newId();
  const now = new Date();
  await tx.query(
    `INSERT INTO purchases (id, buyer_id, checkout_id, status, subtotal, delivery, fee, total, delivery_address, created_at, updated_at)
     VALUES ($1, $2, $3, $10, $4, $5, $6, $7, $8, $9, $9)`,
    [
      purchaseId,
      session.buyerId,
      session.id,
      session.subtotal,
      session.delivery,
      session.fee,
      session.total,
      JSON.stringify(session.deliveryAddress),
      now,
      PURCHASE_INITIAL_STATUS,
    ],
  );

  const events: OrderEventData[] = [];
  const paidOrders: Array<{ orderId: string; sellerId: string; total: number }> = [];
  const sales: Parameters<typeof recordSales>[1] = [];
  for (const seller of session.sellers) {
    const orderId = newId();
    await tx.query(
      `INSERT INTO orders (id, purchase_id, seller_id, buyer_id, status, subtotal, delivery_charge, total, delivery_option, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $10, $5, $6, $7, $8, $9, $9)`,
      [
        orderId,
        purchaseId,
        seller.sellerId,
        session.buyerId,
        seller.subtotal,
        seller.deliveryCharge,
        seller.total,
        JSON.stringify(seller.deliveryOption),
        now,
        ORDER_INITIAL_STATUS,
      ],
    );
    paidOrders.push({ orderId, sellerId: seller.sellerId, total: seller.total });
    const lines = session.lines.filter((l) => l.sellerId === seller.sellerId);
    for (const line of lines) {
      await tx.query(
        `INSERT INTO order_items (id, order_id, listing_id, urn, price, quantity, condition, language, variants, comment, status, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $12, $11, $11)`,
        [
          newId(),
          orderId,
          line.listingId,
          line.urn,
          line.price,
          line.quantity,
          line.condition,
          line.language,
          JSON.stringify(line.variants),
          line.comment,
          now,
          ORDER_INITIAL_STATUS,
        ],
      );
      sales.push({
        itemUrn: line.urn,
        listingId: line.listingId,
        orderId,
        unitPrice: line.price,
        quantity: line.quantity,
        condition: line.condition,
        soldAt: now,
      });
    }
    events.push({
      sellerId: seller.sellerId,
      createdAt: now.toISOString(),
      orderId,
      listings: lines.map((l) => ({ urn: l.urn, listingId: l.listingId, quantity: l.quantity, price: l.price })),
    });
  }

  await recordSales(tx, sales);
  await postPayment(tx, { purchaseId, fee: session.fee, total: session.total, orders: paidOrders }, options.sellerFeeBps);
  await tx.query(
    `INSERT INTO invoices (id, purchase_id, buyer_id, number, total, created_at)
     VALUES ($1, $2, $3, 'INV-' || lpad(nextval('invoice_number_seq')::text, 8, '0'), $4, $5)`,
    [newId(), purchaseId, session.buyerId, session.total, now],
  );
  await tx.query(`UPDATE checkout_sessions SET purchase_id = $2, updated_at = now() WHERE id = $1`, [session.id, purchaseId]);
  await tx.query(`UPDATE baskets SET status = 'ORDERED', updated_at = now() WHERE id = $1`, [session.basketId]);
  await emitEvents(tx, 'ORDER_CREATED', events);
  // Stock near the end: a popular listing's row stays locked from here until commit, and every
  // other checkout and payment of it waits that long.
  await commitHolds(tx, session.id);
  if (session.offerId) await offerPaid(tx, session.offerId, purchaseId, now, options.offerChanges);
  // Open offers on listings this sale sold out end (their workflows read their listing again).
  await noticeOpenOffers(
    tx,
    session.lines.map((l) => l.listingId),
    options.offerChanges,
  );
  // The user summary's `purchases` and `sales` count purchases and seller orders. Last, because a
  // busy seller's row is contended: concurrent commits for one seller queue here, briefly. Locked
  // in id order first (NO KEY UPDATE, the UPDATE's own lock), or two commits sharing two sellers
  // can deadlock: docs/checkout-orders.md, "Lock order". The buyer's and sellers' stats versions
  // move at commit, by the database (the purchase and its orders are counted rows).
  await tx.query(
    `UPDATE users u
        SET purchases_count = u.purchases_count + (u.id = $1)::int,
            sales_count = u.sales_count + (u.id = ANY($2))::int
       FROM (SELECT id FROM users WHERE id = $1 OR id = ANY($2) ORDER BY id FOR NO KEY UPDATE) locked
      WHERE u.id = locked.id`,
    [session.buyerId, session.sellers.map((s) => s.sellerId)],
  );
  return purchaseId;
}
