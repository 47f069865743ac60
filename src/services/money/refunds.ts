import type { EntityManager } from 'typeorm';
import { newId } from '../../ids';
import { emitEvents } from '../events/outbox';
import { CURRENCY, lockSellerMoney, orderPending, postLedger, sellerBalances } from './ledger';
import { allocateRefund } from '../../domain/money/refund-allocation';
import { ORDER_REFUNDED } from '../../domain/orders/order-machine';
import { emitOrderUpdated } from '../orders/order-events';

/** An order adjustment as order views show it (docs/money.md). */
export interface AdjustmentView {
  id: string;
  orderId: string;
  caseId: string | null;
  /** What caused it: an accepted outcome of a case (REFUND, RETURN, REPLACEMENT), or the order's cancellation. */
  reason: 'CASE' | 'CANCELLATION';
  /** REFUND: money back to the buyer. REPLACEMENT: goods sent again; amount 0, no refund. */
  type: 'REFUND' | 'REPLACEMENT';
  kind: 'FULL' | 'PARTIAL' | 'DELIVERY';
  amount: number;
  currency: string;
  /** The payment simulator's refund; null on a REPLACEMENT. */
  refundId: string | null;
  createdAt: Date;
}

interface OrderRow {
  seller_id: string;
  buyer_id: string;
  purchase_id: string;
  status: string;
  total: number;
  delivery_charge: number;
}

interface OrderMoney {
  /** What the buyer paid for this order, per the ledger (seller share + seller fee). */
  paid: number;
  /** The platform's seller fee posted at payment. */
  fee: number;
  refunded: number;
  delivery_refunded: number;
}

interface LineLeft {
  id: string;
  value: number;
  refunded: number;
}

/**
 * What a refund is about: the whole order, or some of its lines (a case's disputed items) with
 * or without the delivery charge (a RETURN gives back the goods' value only).
 */
export type RefundScope = { orderId: string; lineIds?: string[]; withDelivery?: boolean } & (
  { caseId: string; outcomeId: string } | { cancellation: true }
);

/**
 * Refunds `requested` pence of an order to the buyer for an accepted REFUND outcome, a resolved
 * RETURN or a cancellation, in that change's transaction: the payment simulator's refund, the
 * adjustment shown on the order, the ledger posting, and REFUND_CREATED to the webhook outbox.
 *
 * How much (docs/money.md "How much"): never more than what is left of the order, and for a
 * refund about some lines, never more than what is left of those lines (or of the delivery charge,
 * for a refund of exactly that). The order row is locked first and what was refunded is read after the lock is held, in
 * a statement of its own: under READ COMMITTED each statement sees what committed before it
 * started, so a refund that committed while this one waited is counted. The database enforces the
 * same caps (CHECKs on `orders.refunded`, `orders.delivery_refunded`, `order_items.refunded`).
 * A live order refunded in full closes as REFUNDED.
 *
 * The platform gives back its seller fee in proportion (all of it once the whole order is
 * refunded); the seller bears the rest, from what is still pending for the order first, then from
 * available (a REVERSAL transfer). The buyer's account stats (`spent` is net of refunds) and the
 * seller's stats are marked stale with it. Idempotent per outcome, and per order for a
 * cancellation. Returns the adjustment, or null when nothing was refunded.
 */
export async function refundOrder(tx: EntityManager, order: RefundScope, requested: number): Promise<AdjustmentView | null> {
  const source: { caseId: string | null; outcomeId: string | null; reason: AdjustmentView['reason'] } =
    'outcomeId' in order
      ? { caseId: order.caseId, outcomeId: order.outcomeId, reason: 'CASE' }
      : { caseId: null, outcomeId: null, reason: 'CANCELLATION' };
  const [o]: OrderRow[] = await tx.query(
    `SELECT seller_id, buyer_id, purchase_id, status, total::int AS total, delivery_charge::int AS delivery_charge
       FROM orders WHERE id = $1 FOR UPDATE`,
    [order.orderId],
  );
  if (!o) return null;
  // Everything below is read with the order locked, each statement seeing every earlier commit.
  const [done] = await tx.query(
    source.outcomeId
      ? `SELECT 1 FROM adjustments WHERE outcome_id = $1`
      : `SELECT 1 FROM adjustments WHERE order_id = $1 AND reason = 'CANCELLATION'`,
    [source.outcomeId ?? order.orderId],
  );
  if (done) return null;
  const [m]: OrderMoney[] = await tx.query(
    `SELECT COALESCE((SELECT sum(e.amount) FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
                       WHERE t.event = 'PAYMENT' AND e.order_id = o.id), 0)::int AS paid,
            COALESCE((SELECT sum(e.amount) FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
                       WHERE t.event = 'PAYMENT' AND e.order_id = o.id AND e.account = 'platform_seller_fee'), 0)::int AS fee,
            o.refunded, o.delivery_refunded
       FROM orders o WHERE o.id = $1`,
    [order.orderId],
  );
  const lines: LineLeft[] = await tx.query(
    `SELECT id, (price * quantity)::int AS value, refunded FROM order_items
      WHERE order_id = $1 AND ($2::uuid[] IS NULL OR id = ANY($2)) ORDER BY created_at, id`,
    [order.orderId, order.lineIds && order.lineIds.length > 0 ? order.lineIds : null],
  );
  const scoped = Boolean(order.lineIds && order.lineIds.length > 0);
  const orderLeft = Math.min(m!.paid, o.total) - m!.refunded;
  const deliveryLeft = order.withDelivery === false ? 0 : o.delivery_charge - m!.delivery_refunded;
  const linesLeft = lines.reduce((sum, l) => sum + l.value - l.refunded, 0);
  // Exactly the order's delivery charge, not refunded yet, is a delivery refund, whatever it is about.
  const deliveryAsked = o.delivery_charge > 0 && requested === o.delivery_charge && deliveryLeft === o.delivery_charge;
  // A refund about some lines gives back those lines' value (or, asked for, the delivery charge).
  const amount = Math.min(requested, orderLeft, scoped ? (deliveryAsked ? deliveryLeft : linesLeft) : orderLeft);
  if (amount <= 0) return null;
  // The order is refunded in full with this refund (however many came before it).
  const completes = m!.refunded + amount === o.total;
  // The label (docs/money.md): FULL for a cancellation or the whole order at once; DELIVERY for
  // exactly the delivery charge as asked (not a capped remainder that happens to equal it).
  const kind =
    source.reason === 'CANCELLATION' || (m!.refunded === 0 && amount === o.total) ? 'FULL' : deliveryAsked ? 'DELIVERY' : 'PARTIAL';
  const shares = refundShares(amount, { completes, deliveryOnly: kind === 'DELIVERY', scoped, lines, deliveryLeft });
  await bookRefundShares(tx, order.orderId, amount, shares);
  if (completes) await closeRefundedOrder(tx, order.orderId, o);
  await lockSellerMoney(tx, o.seller_id);

  // The fee given back so far is always floor(fee × refunded / paid): proportional, whole pence,
  // and exactly the fee once everything is refunded.
  const paid = m!.paid;
  const feeBack = Math.floor((m!.fee * (m!.refunded + amount)) / paid) - Math.floor((m!.fee * m!.refunded) / paid);
  const fromSeller = amount - feeBack;
  const fromPending = Math.min(fromSeller, Math.max(0, await orderPending(tx, order.orderId)));
  // Available never goes negative: what was paid out already is the platform's loss.
  const fromAvailable = Math.min(fromSeller - fromPending, (await sellerBalances(tx, o.seller_id)).available);
  const loss = fromSeller - fromPending - fromAvailable;

  const refundId = newId();
  await tx.query(`INSERT INTO payment_refunds (id, purchase_id, amount, currency, status) VALUES ($1, $2, $3, $4, 'SUCCEEDED')`, [
    refundId,
    o.purchase_id,
    amount,
    CURRENCY,
  ]);
  const [adjustment]: AdjustmentView[] = await tx.query(
    `INSERT INTO adjustments (id, order_id, case_id, outcome_id, reason, type, kind, amount, currency, refund_id)
     VALUES ($1, $2, $3, $4, $5, 'REFUND', $6, $7, $8, $9) RETURNING ${ADJUSTMENT_COLUMNS}`,
    [newId(), order.orderId, source.caseId, source.outcomeId, source.reason, kind, amount, CURRENCY, refundId],
  );
  if (fromAvailable > 0) {
    await tx.query(
      `INSERT INTO transfers (id, seller_id, order_id, type, status, amount, currency, available_on) VALUES ($1, $2, $3, 'REVERSAL', 'COMPLETED', $4, $5, now())`,
      [newId(), o.seller_id, order.orderId, fromAvailable, CURRENCY],
    );
  }
  await postLedger(tx, {
    event: 'REFUND',
    idempotencyKey: source.outcomeId ? `refund:${source.outcomeId}` : `cancellation:${order.orderId}`,
    purchaseId: o.purchase_id,
    orderId: order.orderId,
    entries: [
      { account: 'refunds', amount },
      { account: 'platform_seller_fee', amount: -feeBack, orderId: order.orderId },
      { account: 'seller_pending', amount: -fromPending, sellerId: o.seller_id, orderId: order.orderId },
      { account: 'seller_available', amount: -fromAvailable, sellerId: o.seller_id, orderId: order.orderId },
      { account: 'platform_refund_losses', amount: -loss, orderId: order.orderId },
    ],
  });
  await emitEvents(tx, 'REFUND_CREATED', [
    {
      sellerId: o.seller_id,
      createdAt: new Date().toISOString(),
      orderId: order.orderId,
      adjustmentId: adjustment!.id,
      reason: source.reason,
      amount,
      currency: CURRENCY,
    },
  ]);
  return adjustment!;
}

/**
 * Gives the buyer back the buyer fee of a purchase nothing of which was sold (it has just settled
 * as CANCELLED: every order cancelled or refunded in full). The fee was the platform's for
 * handling a sale, and there was none. A payment refund of its own on the purchase and a ledger
 * REFUND with no order (`platform_buyer_fee` → `refunds`), once per purchase: `fee_refunded`
 * goes from 0 to the fee in the same statement that decides it, and the ledger key is the
 * purchase's. The buyer's `spent` falls with it; the caller, `settlePurchase`, marks the account
 * stats stale for the status change and this refund together. Returns the fee refunded (0: none).
 */
export async function refundBuyerFee(tx: EntityManager, purchaseId: string): Promise<number> {
  // An UPDATE … RETURNING answers [rows, count].
  const [[p]]: [Array<{ fee: number }>] = await tx.query(
    `UPDATE purchases SET fee_refunded = fee WHERE id = $1 AND fee_refunded = 0 AND fee > 0 RETURNING fee::int AS fee`,
    [purchaseId],
  );
  if (!p) return 0;
  await tx.query(`INSERT INTO payment_refunds (id, purchase_id, amount, currency, status) VALUES ($1, $2, $3, $4, 'SUCCEEDED')`, [
    newId(),
    purchaseId,
    p.fee,
    CURRENCY,
  ]);
  await postLedger(tx, {
    event: 'REFUND',
    idempotencyKey: `buyer-fee:${purchaseId}`,
    purchaseId,
    entries: [
      { account: 'refunds', amount: p.fee },
      { account: 'platform_buyer_fee', amount: -p.fee },
    ],
  });
  return p.fee;
}

type Share = { key: string | 'delivery'; amount: number };

/**
 * What of a refund each line and the delivery charge bear: everything once the order is refunded
 * in full; the delivery charge alone for a delivery refund; for a refund about some lines, those
 * lines in proportion to what is left of them; for any other refund of the whole order, every
 * line and the delivery charge in proportion to what is left of each.
 */
function refundShares(
  amount: number,
  r: { completes: boolean; deliveryOnly: boolean; scoped: boolean; lines: LineLeft[]; deliveryLeft: number },
): Share[] {
  const left = r.lines.map((l) => ({ key: l.id, left: l.value - l.refunded }));
  if (r.completes) return [...left.map((l) => ({ key: l.key, amount: l.left })), { key: 'delivery', amount: r.deliveryLeft }];
  if (r.deliveryOnly) return [{ key: 'delivery', amount }];
  if (!r.scoped) return allocateRefund(amount, [...left, { key: 'delivery', left: r.deliveryLeft }]).shares;
  return allocateRefund(amount, left).shares;
}

/** Adds the refund to the order's, its lines' and its delivery charge's refunded amounts (the capped columns). */
async function bookRefundShares(tx: EntityManager, orderId: string, amount: number, shares: Share[]): Promise<void> {
  const delivery = shares.find((s) => s.key === 'delivery')?.amount ?? 0;
  await tx.query(`UPDATE orders SET refunded = refunded + $2, delivery_refunded = delivery_refunded + $3 WHERE id = $1`, [
    orderId,
    amount,
    delivery,
  ]);
  const onLines = shares.filter((s) => s.key !== 'delivery' && s.amount > 0);
  if (onLines.length === 0) return;
  await tx.query(
    `UPDATE order_items i SET refunded = i.refunded + s.amount, updated_at = now()
       FROM unnest($2::uuid[], $3::int[]) AS s(id, amount) WHERE i.order_id = $1 AND i.id = s.id`,
    [orderId, onLines.map((s) => s.key), onLines.map((s) => s.amount)],
  );
}

/** A live order refunded in full is closed: REFUNDED, with its items that were not cancelled. */
async function closeRefundedOrder(tx: EntityManager, orderId: string, o: OrderRow): Promise<void> {
  const closed = await tx.query(`UPDATE orders SET status = $2, updated_at = now() WHERE id = $1 AND status = ANY($3) RETURNING id`, [
    orderId,
    ORDER_REFUNDED.to,
    ORDER_REFUNDED.from,
  ]);
  if (closed.length === 0) return; // already cancelled
  await tx.query(`UPDATE order_items SET status = $2, updated_at = now() WHERE order_id = $1 AND status = ANY($3)`, [
    orderId,
    ORDER_REFUNDED.to,
    ORDER_REFUNDED.from,
  ]);
  await emitOrderUpdated(tx, { id: orderId, seller_id: o.seller_id });
}

/**
 * Records on the order that the seller sends the goods of an accepted REPLACEMENT outcome again:
 * an adjustment of type REPLACEMENT, amount 0 and no refund, FULL when every unit of the order is
 * replaced. Once per outcome (the outcome's unique adjustment).
 */
export async function recordReplacement(
  tx: EntityManager,
  order: { orderId: string; caseId: string; outcomeId: string },
  kind: 'FULL' | 'PARTIAL',
): Promise<void> {
  await tx.query(
    `INSERT INTO adjustments (id, order_id, case_id, outcome_id, reason, type, kind, amount, currency, refund_id)
     VALUES ($1, $2, $3, $4, 'CASE', 'REPLACEMENT', $5, 0, $6, NULL) ON CONFLICT (outcome_id) DO NOTHING`,
    [newId(), order.orderId, order.caseId, order.outcomeId, kind, CURRENCY],
  );
}

const ADJUSTMENT_COLUMNS = `id, order_id AS "orderId", case_id AS "caseId", reason, type, kind, amount::int AS amount, currency, refund_id AS "refundId",
  created_at AS "createdAt"`;

/** The adjustments of the given orders, oldest first, grouped by order (for order views). */
export async function adjustmentsOfOrders(db: Pick<EntityManager, 'query'>, orderIds: string[]): Promise<Map<string, AdjustmentView[]>> {
  const rows: AdjustmentView[] = await db.query(
    `SELECT ${ADJUSTMENT_COLUMNS} FROM adjustments WHERE order_id = ANY($1) ORDER BY created_at, id`,
    [orderIds],
  );
  const byOrder = new Map<string, AdjustmentView[]>();
  for (const row of rows) byOrder.set(row.orderId, [...(byOrder.get(row.orderId) ?? []), row]);
  return byOrder;
}
