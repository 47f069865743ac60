import type { EntityManager } from 'typeorm';
import { newId } from '../../ids';
import { formatPence } from '../../domain/money/pence';
import { conflict, invalid, notFound, type FieldError } from '../errors';
import { emitEvents } from '../events/outbox';
import { enqueueEmail } from '../../integrations/email/outbox';
import { restoreStock } from '../listings/stock';
import { requestReviewWindow, type ReviewWindowStart } from '../reviews/review-windows';
import { refundBuyerFee, refundOrder } from '../money/refunds';
import { emitOrderUpdated } from './order-events';
import { openCase, type CaseRequest, type OpenedCase } from '../cases/case-opening';
import type { CaseReason } from '../../domain/cases/machine';
import {
  ORDER_ITEM_TRANSITIONS,
  cancellationAllows,
  cancellationRequestStatus,
  ORDER_REFUNDED,
  ORDER_TRANSITIONS,
  orderActorMay,
  orderAllows,
  PURCHASE_TRANSITIONS,
  type CancellationRequestStatus,
  type OrderItemStatus,
  type OrderStatus,
} from '../../domain/orders/order-machine';

const CLOSED_ORDER_STATUSES: OrderStatus[] = [ORDER_TRANSITIONS.cancel.to, ORDER_REFUNDED.to];

export { CASE_REASONS, type CaseReason } from '../../domain/cases/machine';

export type Actor = { role: 'seller' | 'buyer'; userId: string } | { role: 'system' };

export interface ItemQuantity {
  id: string;
  quantity: number;
}

export type OrderAction =
  | { action: 'ship'; shipment: { carrier: string; trackingNumber: string; trackingUrl?: string }; items: ItemQuantity[] }
  | ({ action: 'dispute'; reason: CaseReason } & CaseRequest)
  | { action: 'receive' }
  | { action: 'request-cancel' }
  | { action: 'decline-cancel' }
  | { action: 'cancel' };

/** What settling a purchase needs to know: the review window a completed purchase opens, and its start. */
export interface Settlement {
  reviewWindowSeconds: number;
  reviewWindow: ReviewWindowStart;
}

/** Work to start once the transaction has committed (workflows must never see rolled-back rows). */
export interface OrderEffects {
  /** A dispute opened this case: start its workflow. */
  openedCase?: OpenedCase;
  /** A shipment was created: start its tracking. */
  shipmentId?: string;
  /** The order has just shipped in full: start its automatic-receipt timer. */
  shippedOrderId?: string;
  /** The order has just been received: its seller share is released after the hold period. */
  receivedOrderId?: string;
  /** The purchase has just completed (its review window is requested already). */
  completedPurchaseId?: string;
  /** E-mails queued in the outbox by this action, to deliver once it commits. */
  messageIds?: string[];
  /** The order was cancelled with these cases open: tell their workflows, which close them. */
  casesOfCancelledOrder?: OpenedCase[];
}

interface OrderRow {
  id: string;
  purchase_id: string;
  seller_id: string;
  buyer_id: string;
  status: OrderStatus;
  cancellation: CancellationRequestStatus | null;
}

interface ItemRow {
  id: string;
  listing_id: string;
  urn: string;
  price: number;
  quantity: number;
  status: OrderItemStatus;
}

/**
 * The shared order update engine: the one place order actions change order items, with their
 * state checks, and the one place ORDER_UPDATED is emitted. Seller routes, buyer routes and the
 * automatic-receipt activity all come through here, inside the caller's transaction. A
 * non-owned order is "not found", like a missing one. Returns null when a system action found
 * nothing to do (so timers may fire late or twice).
 */
export async function applyOrderAction(
  tx: EntityManager,
  orderId: string,
  actor: Actor,
  action: OrderAction,
  settlement: Settlement,
): Promise<OrderEffects | null> {
  const order = await lockOrder(tx, orderId, actor);
  if (!order) {
    if (actor.role === 'system') return null; // a timer outliving its order has nothing to do
    throw notFound('Order');
  }
  // Which party may take which action is the order table's; ownership was checked in SQL above.
  if (!orderActorMay(actor.role, action.action))
    throw conflict('action-not-allowed', `The ${actor.role} cannot ${action.action} an order.`);
  // A closed order (cancelled, or refunded in full) takes no action at all: say why, whatever the action.
  if (CLOSED_ORDER_STATUSES.includes(order.status) && actor.role !== 'system') {
    throw conflict(order.status === 'CANCELLED' ? 'order-cancelled' : 'order-refunded', `The order is ${order.status.toLowerCase()}.`);
  }
  const items: ItemRow[] = await tx.query(
    `SELECT id, listing_id, urn, price, quantity, status FROM order_items WHERE order_id = $1 ORDER BY created_at, id FOR UPDATE`,
    [order.id],
  );
  let effects: OrderEffects | null;
  switch (action.action) {
    case 'ship':
      effects = await ship(tx, order, items, action);
      break;
    case 'dispute':
      effects = await dispute(tx, order, items, actor.role === 'seller' ? 'SELLER' : 'BUYER', action);
      break;
    case 'receive':
      effects = await receive(tx, order, actor, settlement);
      break;
    case 'request-cancel':
      effects = await requestCancel(tx, order);
      break;
    case 'decline-cancel':
      effects = await declineCancel(tx, order);
      break;
    case 'cancel':
      effects = await cancel(tx, order, items, settlement);
      break;
  }
  if (effects === null) return null;
  await tx.query(`UPDATE orders SET updated_at = now() WHERE id = $1`, [order.id]);
  await emitOrderUpdated(tx, order);
  return effects;
}

async function lockOrder(tx: EntityManager, orderId: string, actor: Actor): Promise<OrderRow | undefined> {
  const owner = actor.role === 'seller' ? 'AND seller_id = $2' : actor.role === 'buyer' ? 'AND buyer_id = $2' : '';
  const args = actor.role === 'system' ? [orderId] : [orderId, actor.userId];
  const [order]: Array<Omit<OrderRow, 'cancellation'> & { requestedAt: Date | null; declinedAt: Date | null; cancelledAt: Date | null }> =
    await tx.query(
      `SELECT id, purchase_id, seller_id, buyer_id, status, cancellation_requested_at AS "requestedAt",
              cancellation_declined_at AS "declinedAt", cancelled_at AS "cancelledAt"
         FROM orders WHERE id = $1 ${owner} FOR UPDATE`,
      args,
    );
  return order && { ...order, cancellation: cancellationRequestStatus(order) };
}

/** Every problem with the requested item quantities, as field errors (one 400 lists them all). */
function checkItems(items: ItemRow[], requested: ItemQuantity[], allowed: readonly OrderItemStatus[]): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  requested.forEach((r, i) => {
    const item = items.find((it) => it.id === r.id);
    if (seen.has(r.id)) errors.push({ in: 'body', field: `items.${i}.id`, message: 'Each order item may be named once.' });
    else if (!item) errors.push({ in: 'body', field: `items.${i}.id`, message: 'Not an item of this order.' });
    else if (!allowed.includes(item.status))
      errors.push({ in: 'body', field: `items.${i}.id`, message: `The item is ${item.status.toLowerCase()}.` });
    else if (r.quantity > item.quantity) {
      errors.push({ in: 'body', field: `items.${i}.quantity`, message: `The item has ${item.quantity} units.` });
    }
    seen.add(r.id);
  });
  return errors;
}

async function ship(
  tx: EntityManager,
  order: OrderRow,
  items: ItemRow[],
  action: Extract<OrderAction, { action: 'ship' }>,
): Promise<OrderEffects> {
  const errors = checkItems(items, action.items, ORDER_ITEM_TRANSITIONS.ship.from);
  if (errors.length > 0) throw invalid('invalid-items', 'Some items cannot be shipped.', errors);
  const shipmentId = newId();
  await tx.query(`INSERT INTO shipments (id, order_id, carrier, tracking_number, tracking_url) VALUES ($1, $2, $3, $4, $5)`, [
    shipmentId,
    order.id,
    action.shipment.carrier,
    action.shipment.trackingNumber,
    action.shipment.trackingUrl ?? '',
  ]);
  for (const r of action.items) {
    const item = items.find((it) => it.id === r.id)!;
    if (r.quantity === item.quantity) {
      await tx.query(`UPDATE order_items SET status = $3, shipment_id = $2, updated_at = now() WHERE id = $1`, [
        item.id,
        shipmentId,
        ORDER_ITEM_TRANSITIONS.ship.to,
      ]);
    } else {
      // Part of a line ships: the shipped units become their own item, the rest stays accepted.
      await tx.query(`UPDATE order_items SET quantity = quantity - $2, updated_at = now() WHERE id = $1`, [item.id, r.quantity]);
      await tx.query(
        `INSERT INTO order_items (id, order_id, listing_id, urn, price, quantity, condition, language, variants, comment, status, shipment_id)
         SELECT $2, order_id, listing_id, urn, price, $3, condition, language, variants, comment, $5, $4 FROM order_items WHERE id = $1`,
        [item.id, newId(), r.quantity, shipmentId, ORDER_ITEM_TRANSITIONS.ship.to],
      );
    }
  }
  // Shipping answers a pending cancellation request: declined.
  await tx.query(
    `UPDATE orders SET cancellation_declined_at = now()
      WHERE id = $1 AND cancellation_requested_at IS NOT NULL AND cancellation_declined_at IS NULL AND cancelled_at IS NULL`,
    [order.id],
  );
  const [[shipped]]: [OrderRow[]] = await tx.query(
    `UPDATE orders SET status = $2, shipped_at = now()
      WHERE id = $1 AND status = ANY($3) AND NOT EXISTS (SELECT 1 FROM order_items WHERE order_id = $1 AND status = ANY($4)) RETURNING id`,
    [order.id, ORDER_TRANSITIONS.ship.to, ORDER_TRANSITIONS.ship.from, ORDER_ITEM_TRANSITIONS.ship.from],
  );
  return shipped ? { shipmentId, shippedOrderId: order.id } : { shipmentId };
}

async function dispute(
  tx: EntityManager,
  order: OrderRow,
  items: ItemRow[],
  party: 'BUYER' | 'SELLER',
  action: Extract<OrderAction, { action: 'dispute' }>,
): Promise<OrderEffects> {
  const errors = checkItems(items, action.items, ORDER_ITEM_TRANSITIONS.dispute.from);
  if (errors.length > 0) throw invalid('invalid-items', 'Some items cannot be disputed.', errors);
  return { openedCase: await openCase(tx, order, party, action) };
}

async function receive(tx: EntityManager, order: OrderRow, actor: Actor, settlement: Settlement): Promise<OrderEffects | null> {
  const { from, to } = ORDER_TRANSITIONS.receive;
  if (!orderAllows(order.status, actor.role, 'receive')) {
    if (actor.role === 'system') return null;
    throw conflict(order.status === to ? 'order-already-received' : 'order-not-shipped', `The order is ${order.status.toLowerCase()}.`);
  }
  await tx.query(`UPDATE order_items SET status = $2, updated_at = now() WHERE order_id = $1 AND status = ANY($3)`, [
    order.id,
    ORDER_ITEM_TRANSITIONS.receive.to,
    ORDER_ITEM_TRANSITIONS.receive.from,
  ]);
  await tx.query(`UPDATE orders SET status = $2, received_at = now() WHERE id = $1 AND status = ANY($3)`, [order.id, to, from]);
  const settled = await settlePurchase(tx, order.purchase_id, settlement);
  return { receivedOrderId: order.id, ...(settled?.status === 'COMPLETED' ? { completedPurchaseId: order.purchase_id } : {}) };
}

/**
 * The buyer asks to cancel before shipment, once: the request becomes PENDING and the seller is
 * told (the order's `nextActions` show by when to answer). Asking again is refused (409), so the seller gets one e-mail.
 */
async function requestCancel(tx: EntityManager, order: OrderRow): Promise<OrderEffects | null> {
  refuseAfterShipment(order, 'request-cancel');
  if (!cancellationAllows('request-cancel', order.cancellation))
    throw conflict('cancellation-already-requested', `The buyer's cancellation request is already ${order.cancellation!.toLowerCase()}.`);
  await tx.query(`UPDATE orders SET cancellation_requested_at = now() WHERE id = $1`, [order.id]);
  return {
    messageIds: [
      await notify(
        tx,
        order.seller_id,
        order.id,
        'The buyer asks you to cancel this order before it ships. Cancel it to refund the buyer in full, or decline the request; the order shows the date to answer by.',
      ),
    ],
  };
}

/** The seller declines a pending cancellation request: the order stays ACCEPTED, the buyer is told. */
async function declineCancel(tx: EntityManager, order: OrderRow): Promise<OrderEffects | null> {
  if (!cancellationAllows('decline-cancel', order.cancellation))
    throw conflict('no-pending-cancellation-request', 'The order has no pending cancellation request.');
  await tx.query(`UPDATE orders SET cancellation_declined_at = now() WHERE id = $1`, [order.id]);
  return {
    messageIds: [await notify(tx, order.buyer_id, order.id, 'The seller declined your request to cancel this order; it will be shipped.')],
  };
}

/**
 * The seller cancels before anything shipped (on the buyer's request or not): the order and its
 * items are CANCELLED, their units go back to their listings, the buyer is refunded the whole
 * order (docs/money.md), ORDER_CANCELLED is emitted and the buyer is told. A cancelled order
 * counts as settled for the purchase.
 */
async function cancel(tx: EntityManager, order: OrderRow, items: ItemRow[], settlement: Settlement): Promise<OrderEffects> {
  refuseAfterShipment(order, 'cancel');
  const { from, to } = ORDER_TRANSITIONS.cancel;
  // A partly shipped order is still ACCEPTED; the shipped units are on their way, so it is too late.
  if (items.some((i) => !(ORDER_ITEM_TRANSITIONS.cancel.from as readonly OrderItemStatus[]).includes(i.status))) {
    throw conflict('order-already-shipped', 'Part of the order has shipped; it can no longer be cancelled.');
  }
  await tx.query(`UPDATE order_items SET status = $2, updated_at = now() WHERE order_id = $1`, [
    order.id,
    ORDER_ITEM_TRANSITIONS.cancel.to,
  ]);
  await tx.query(`UPDATE orders SET status = $2, cancelled_at = now() WHERE id = $1 AND status = ANY($3)`, [order.id, to, from]);
  for (const item of [...items].sort((a, b) => a.listing_id.localeCompare(b.listing_id))) {
    await restoreStock(tx, item.listing_id, item.quantity);
  }
  const [row]: Array<{ total: number }> = await tx.query(`SELECT total FROM orders WHERE id = $1`, [order.id]);
  const refund = await refundOrder(tx, { orderId: order.id, cancellation: true }, row!.total);
  await emitEvents(tx, 'ORDER_CANCELLED', [
    {
      sellerId: order.seller_id,
      createdAt: new Date().toISOString(),
      orderId: order.id,
      listings: items.map((i) => ({ urn: i.urn, listingId: i.listing_id, quantity: i.quantity, price: i.price })),
    },
  ]);
  const settled = await settlePurchase(tx, order.purchase_id, settlement);
  const notice = cancellationNotice(row!.total, refund?.amount ?? 0, settled?.feeRefunded ?? 0);
  const messageIds = [await notify(tx, order.buyer_id, order.id, notice)];
  return {
    messageIds,
    casesOfCancelledOrder: await openCasesOf(tx, order),
    ...(settled?.status === 'COMPLETED' ? { completedPurchaseId: order.purchase_id } : {}),
  };
}

/**
 * What the buyer is told of a cancellation: what came back (the order's total; less when part of
 * it was refunded before) and, when this cancellation left nothing of the purchase, its buyer fee.
 */
function cancellationNotice(total: number, refunded: number, feeRefunded: number): string {
  const lines = [
    refunded === total
      ? `The seller cancelled this order. You have been refunded its total, ${formatPence(total)}.`
      : `The seller cancelled this order. You have been refunded the rest of its total, ${formatPence(refunded)} (${formatPence(total - refunded)} was refunded before).`,
  ];
  if (feeRefunded > 0)
    lines.push(`Nothing else of your purchase is left, so its service fee of ${formatPence(feeRefunded)} has been refunded too.`);
  return lines.join(' ');
}

/** The order's cases not yet CLOSED, as their workflows were started (docs/cases.md "Order cancelled"). */
async function openCasesOf(tx: EntityManager, order: OrderRow): Promise<OpenedCase[]> {
  const cases: Array<{ id: string; reason: string }> = await tx.query(
    `SELECT id, reason FROM cases WHERE order_id = $1 AND status <> 'CLOSED' ORDER BY created_at, id`,
    [order.id],
  );
  const opened: OpenedCase[] = [];
  for (const c of cases) {
    const outcomes: OpenedCase['outcomes'] = await tx.query(
      `SELECT id, type, party, status FROM case_outcomes WHERE case_id = $1 ORDER BY created_at, id`,
      [c.id],
    );
    opened.push({ caseId: c.id, orderId: order.id, sellerId: order.seller_id, reason: c.reason, outcomes });
  }
  return opened;
}

function refuseAfterShipment(order: OrderRow, action: 'cancel' | 'request-cancel'): void {
  if (orderAllows(order.status, action === 'cancel' ? 'seller' : 'buyer', action)) return;
  const code = order.status === 'CANCELLED' ? 'order-cancelled' : order.status === 'REFUNDED' ? 'order-refunded' : 'order-already-shipped';
  throw conflict(code, `The order is ${order.status.toLowerCase()}.`);
}

async function notify(tx: EntityManager, userId: string, orderId: string, text: string): Promise<string> {
  const [user]: Array<{ email: string }> = await tx.query(`SELECT email FROM users WHERE id = $1`, [userId]);
  return enqueueEmail(tx, { to: user!.email, kind: 'order-cancellation', subject: `Order ${orderId}: cancellation`, text });
}

/**
 * The purchase lifecycle's one settlement rule, once every order is settled (received, cancelled
 * or refunded in full) and no case is open: COMPLETED when at least one order was received;
 * CANCELLED when nothing was sold, which refunds the buyer fee too (docs/money.md "Buyer fee").
 * Called after a receipt, a cancellation and when a case closes
 * (src/services/cases/case-changes.ts). A COMPLETED purchase opens its review window here, the
 * one place that happens. Returns the status the purchase has just taken, if any, and the buyer
 * fee refunded with it.
 */
export async function settlePurchase(
  tx: EntityManager,
  purchaseId: string,
  settlement: Settlement,
): Promise<{ status: 'COMPLETED' | 'CANCELLED'; feeRefunded: number } | null> {
  const settled = `NOT EXISTS (SELECT 1 FROM orders WHERE purchase_id = $1 AND status <> ALL($3))
               AND NOT EXISTS (SELECT 1 FROM cases WHERE purchase_id = $1 AND status <> 'CLOSED')`;
  const received = `EXISTS (SELECT 1 FROM orders WHERE purchase_id = $1 AND status = $5)`;
  const [rows]: [Array<{ buyer_id: string; status: 'COMPLETED' | 'CANCELLED' }>] = await tx.query(
    `UPDATE purchases SET status = CASE WHEN ${received} THEN $2 ELSE $6 END,
                          completed_at = CASE WHEN ${received} THEN now() END, updated_at = now()
      WHERE id = $1 AND status = ANY($4) AND ${settled}
      RETURNING buyer_id, status`,
    [
      purchaseId,
      PURCHASE_TRANSITIONS.complete.to,
      [ORDER_TRANSITIONS.receive.to, ORDER_TRANSITIONS.cancel.to, ORDER_REFUNDED.to],
      PURCHASE_TRANSITIONS.complete.from,
      ORDER_TRANSITIONS.receive.to,
      PURCHASE_TRANSITIONS.cancel.to,
    ],
  );
  const purchase = rows[0];
  if (!purchase) return null;
  const feeRefunded = purchase.status === PURCHASE_TRANSITIONS.cancel.to ? await refundBuyerFee(tx, purchaseId) : 0;
  if (purchase.status === PURCHASE_TRANSITIONS.complete.to)
    await requestReviewWindow(tx, purchaseId, settlement.reviewWindowSeconds, settlement.reviewWindow);
  return { status: purchase.status, feeRefunded };
}
