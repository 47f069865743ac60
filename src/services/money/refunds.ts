import type { EntityManager } from 'typeorm';
import { newId } from '../../ids';
import { touchAccountStats } from '../account/stats-version';
import { emitEvents } from '../events/outbox';
import { touchSellerStats } from '../sellers/stats-version';
import { CURRENCY, lockSellerMoney, orderPending, postLedger, sellerBalances } from './ledger';

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

interface OrderMoney {
  seller_id: string;
  buyer_id: string;
  purchase_id: string;
  delivery_charge: number;
  /** What the buyer paid for this order, per the ledger (seller share + seller fee). */
  paid: number;
  /** The platform's seller fee posted at payment. */
  fee: number;
  refunded: number;
}

/**
 * Refunds `requested` pence of an order to the buyer for an accepted REFUND outcome or a
 * cancellation, in that change's transaction: the payment simulator's refund, the adjustment shown on the order, and the
 * ledger posting, and REFUND_CREATED to the webhook outbox. Never more than what is left of what the buyer paid for the order. The platform
 * gives back its seller fee in proportion (all of it once the whole order is refunded); the
 * seller bears the rest, from what is still pending for the order first, then from available
 * (a REVERSAL transfer). The buyer's account stats (`spent` is net of refunds) and the seller's
 * stats are marked stale with it. Idempotent per outcome, and per order for a cancellation.
 * Returns the adjustment, or null when nothing was refunded (nothing left, or an amount of 0).
 */
export async function refundOrder(
  tx: EntityManager,
  order: { orderId: string } & ({ caseId: string; outcomeId: string } | { cancellation: true }),
  requested: number,
): Promise<AdjustmentView | null> {
  const source =
    'outcomeId' in order
      ? { caseId: order.caseId, outcomeId: order.outcomeId, reason: 'CASE' }
      : { caseId: null, outcomeId: null, reason: 'CANCELLATION' };
  const [done] = await tx.query(
    source.outcomeId
      ? `SELECT 1 FROM adjustments WHERE outcome_id = $1`
      : `SELECT 1 FROM adjustments WHERE order_id = $1 AND reason = 'CANCELLATION'`,
    [source.outcomeId ?? order.orderId],
  );
  if (done) return null;
  const [m]: OrderMoney[] = await tx.query(
    `SELECT o.seller_id, o.buyer_id, o.purchase_id, o.delivery_charge,
            COALESCE((SELECT sum(e.amount) FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
                       WHERE t.event = 'PAYMENT' AND e.order_id = o.id), 0)::int AS paid,
            COALESCE((SELECT sum(e.amount) FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
                       WHERE t.event = 'PAYMENT' AND e.order_id = o.id AND e.account = 'platform_seller_fee'), 0)::int AS fee,
            COALESCE((SELECT sum(amount) FROM adjustments WHERE order_id = o.id), 0)::int AS refunded
       FROM orders o WHERE o.id = $1 FOR UPDATE`,
    [order.orderId],
  );
  if (!m) return null;
  const amount = Math.min(requested, m.paid - m.refunded);
  if (amount <= 0) return null;
  await lockSellerMoney(tx, m.seller_id);

  // The fee given back so far is always floor(fee × refunded / paid): proportional, whole pence,
  // and exactly the fee once everything is refunded.
  const feeBack = Math.floor((m.fee * (m.refunded + amount)) / m.paid) - Math.floor((m.fee * m.refunded) / m.paid);
  const fromSeller = amount - feeBack;
  const fromPending = Math.min(fromSeller, Math.max(0, await orderPending(tx, order.orderId)));
  // Available never goes negative: what was paid out already is the platform's loss.
  const fromAvailable = Math.min(fromSeller - fromPending, (await sellerBalances(tx, m.seller_id)).available);
  const loss = fromSeller - fromPending - fromAvailable;

  const refundId = newId();
  await tx.query(`INSERT INTO payment_refunds (id, purchase_id, amount, currency, status) VALUES ($1, $2, $3, $4, 'SUCCEEDED')`, [
    refundId,
    m.purchase_id,
    amount,
    CURRENCY,
  ]);
  const kind = m.refunded === 0 && amount === m.paid ? 'FULL' : amount === m.delivery_charge ? 'DELIVERY' : 'PARTIAL';
  const [adjustment]: AdjustmentView[] = await tx.query(
    `INSERT INTO adjustments (id, order_id, case_id, outcome_id, reason, type, kind, amount, currency, refund_id)
     VALUES ($1, $2, $3, $4, $5, 'REFUND', $6, $7, $8, $9) RETURNING ${ADJUSTMENT_COLUMNS}`,
    [newId(), order.orderId, source.caseId, source.outcomeId, source.reason, kind, amount, CURRENCY, refundId],
  );
  if (fromAvailable > 0) {
    await tx.query(
      `INSERT INTO transfers (id, seller_id, order_id, type, status, amount, currency, available_on) VALUES ($1, $2, $3, 'REVERSAL', 'COMPLETED', $4, $5, now())`,
      [newId(), m.seller_id, order.orderId, fromAvailable, CURRENCY],
    );
  }
  await postLedger(tx, {
    event: 'REFUND',
    idempotencyKey: source.outcomeId ? `refund:${source.outcomeId}` : `cancellation:${order.orderId}`,
    purchaseId: m.purchase_id,
    orderId: order.orderId,
    entries: [
      { account: 'refunds', amount },
      { account: 'platform_seller_fee', amount: -feeBack, orderId: order.orderId },
      { account: 'seller_pending', amount: -fromPending, sellerId: m.seller_id, orderId: order.orderId },
      { account: 'seller_available', amount: -fromAvailable, sellerId: m.seller_id, orderId: order.orderId },
      { account: 'platform_refund_losses', amount: -loss, orderId: order.orderId },
    ],
  });
  await touchAccountStats(tx, m.buyer_id);
  await touchSellerStats(tx, m.seller_id);
  await emitEvents(tx, 'REFUND_CREATED', [
    {
      sellerId: m.seller_id,
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
