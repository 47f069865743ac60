import type { DataSource } from 'typeorm';
import { AccountStatsService } from '../account/account-stats';
import { SellerStatsService } from '../sellers/seller-stats';
import { sellerBalances } from './ledger';
import { sellerFee } from './postings';
import { transfersOfOrders } from './transfers';

/**
 * One reported money figure that does not agree with the ledger (docs/money.md "Reconcile").
 * `reported` is what the service or table shows, `ledger` what the ledger rows give; `relation`
 * says how the two must compare (`=` for most figures; `≤`/`≥` for caps and floors, e.g. a
 * balance that must not be below 0).
 */
export interface Difference {
  figure: string;
  /** The seller, buyer, order, purchase, transfer, payout or ledger transaction the figure is about. */
  subject: string;
  reported: number;
  ledger: number;
  relation: '=' | '≤' | '≥';
}

export interface ReconcileOptions {
  /** The seller fee rule in force (`SELLER_FEE_BPS`). */
  sellerFeeBps: number;
  /**
   * Only these sellers and buyers (their balances, payouts, transfers, orders, purchases and
   * stats); every ledger transaction is still checked for balance. Without it, everything,
   * including ledger rows that belong to no purchase or payout.
   */
  scope?: { sellerIds: string[]; buyerIds: string[] };
}

type Row = { subject: string; reported: string | number; ledger: string | number };

/**
 * Recomputes every reported money figure from the ledger rows and returns where they differ:
 * balanced transactions; seller balances (as `/seller/balance` reads them), never negative;
 * payouts against their postings; transfers against their postings; per order what was paid,
 * refunded (adjustments, ledger, simulator refunds) and the per-line and delivery caps; the
 * seller fee against its rule; purchases against their payment postings and invoices; the
 * account stats' `spent` and the seller stats' order count as the stats services report them.
 * Read-only. An empty list means everything agrees.
 */
export async function reconcileFigures(db: DataSource, options: ReconcileOptions): Promise<Difference[]> {
  const sellers = options.scope?.sellerIds ?? null;
  const buyers = options.scope?.buyerIds ?? null;
  const out: Difference[] = [];
  const add = (figure: string, relation: Difference['relation'], rows: Row[]) => {
    for (const r of rows) out.push({ figure, subject: r.subject, reported: Number(r.reported), ledger: Number(r.ledger), relation });
  };
  const q = (sql: string, params: unknown[] = []): Promise<Row[]> => db.query(sql, params);
  // Orders in scope: of a seller or a buyer in scope (all without a scope).
  const ORDERS = `(SELECT * FROM orders WHERE ($1::uuid[] IS NULL OR seller_id = ANY($1)) OR ($2::uuid[] IS NOT NULL AND buyer_id = ANY($2)))`;
  const scope = [sellers, buyers];

  // The ledger: every transaction sums to zero in each currency (the deferred trigger's rule).
  add(
    'ledger.transaction-sum',
    '=',
    await q(`SELECT transaction_id || ' ' || currency AS subject, sum(amount) AS reported, 0 AS ledger
               FROM ledger_entries GROUP BY transaction_id, currency HAVING sum(amount) <> 0`),
  );

  // Sellers: every seller with ledger rows or payouts.
  const sellerRows: Array<{ seller_id: string; pending: string; available: string; in_transit: string; payouts_open: string }> =
    await db.query(
      `WITH s AS (SELECT seller_id FROM ledger_entries WHERE seller_id IS NOT NULL UNION SELECT seller_id FROM payouts)
       SELECT s.seller_id,
              COALESCE((SELECT sum(amount) FROM ledger_entries e WHERE e.seller_id = s.seller_id AND e.account = 'seller_pending'), 0) AS pending,
              COALESCE((SELECT sum(amount) FROM ledger_entries e WHERE e.seller_id = s.seller_id AND e.account = 'seller_available'), 0) AS available,
              COALESCE((SELECT sum(amount) FROM ledger_entries e WHERE e.seller_id = s.seller_id AND e.account = 'payouts_in_transit'), 0) AS in_transit,
              COALESCE((SELECT sum(amount) FROM payouts p WHERE p.seller_id = s.seller_id AND p.status IN ('CREATED', 'IN_TRANSIT')), 0) AS payouts_open
         FROM s WHERE $1::uuid[] IS NULL OR s.seller_id = ANY($1) ORDER BY s.seller_id`,
      [sellers],
    );
  for (const s of sellerRows) {
    const balance = await sellerBalances(db.manager, s.seller_id);
    const ledger = { pending: Number(s.pending), available: Number(s.available) };
    for (const account of ['pending', 'available'] as const) {
      if (balance[account] !== ledger[account])
        out.push({ figure: `seller.${account}`, subject: s.seller_id, reported: balance[account], ledger: ledger[account], relation: '=' });
      if (balance[account] < 0)
        out.push({ figure: `seller.${account}.non-negative`, subject: s.seller_id, reported: balance[account], ledger: 0, relation: '≥' });
    }
    if (Number(s.payouts_open) !== Number(s.in_transit))
      out.push({
        figure: 'seller.payouts-in-transit',
        subject: s.seller_id,
        reported: Number(s.payouts_open),
        ledger: Number(s.in_transit),
        relation: '=',
      });
  }

  // Payouts: each one's amount against its postings (created; then paid or failed).
  const PAYOUT_POSTED = (key: string, event: string, account: string, sign: string) =>
    `COALESCE((SELECT ${sign}sum(e.amount) FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
                WHERE t.idempotency_key = '${key}:' || p.id AND t.event = '${event}' AND e.account = '${account}'), 0)`;
  const payouts = `(SELECT p.id, p.status, p.amount,
      ${PAYOUT_POSTED('payout-created', 'PAYOUT_CREATED', 'payouts_in_transit', '')} AS created,
      ${PAYOUT_POSTED('payout-settled', 'PAYOUT_PAID', 'payouts', '')} AS paid,
      ${PAYOUT_POSTED('payout-settled', 'PAYOUT_FAILED', 'seller_available', '')} AS failed
    FROM payouts p WHERE $1::uuid[] IS NULL OR p.seller_id = ANY($1))`;
  add(
    'payout.created',
    '=',
    await q(`SELECT id AS subject, amount AS reported, created AS ledger FROM ${payouts} x WHERE amount <> created`, [sellers]),
  );
  add(
    'payout.paid',
    '=',
    await q(
      `SELECT id AS subject, CASE WHEN status = 'PAID' THEN amount ELSE 0 END AS reported, paid AS ledger FROM ${payouts} x
        WHERE CASE WHEN status = 'PAID' THEN amount ELSE 0 END <> paid`,
      [sellers],
    ),
  );
  add(
    'payout.failed',
    '=',
    await q(
      `SELECT id AS subject, CASE WHEN status = 'FAILED' THEN amount ELSE 0 END AS reported, failed AS ledger FROM ${payouts} x
        WHERE CASE WHEN status = 'FAILED' THEN amount ELSE 0 END <> failed`,
      [sellers],
    ),
  );
  if (!options.scope)
    add(
      'payouts.paid-total',
      '=',
      await q(`SELECT 'payouts' AS subject,
                      (SELECT COALESCE(sum(amount), 0) FROM payouts WHERE status = 'PAID') AS reported,
                      (SELECT COALESCE(sum(amount), 0) FROM ledger_entries WHERE account = 'payouts') AS ledger
                WHERE (SELECT COALESCE(sum(amount), 0) FROM payouts WHERE status = 'PAID')
                   <> (SELECT COALESCE(sum(amount), 0) FROM ledger_entries WHERE account = 'payouts')`),
    );

  // Transfers, as the seller routes show them, against the postings of their order.
  const orderIds: string[] = (await db.query(`SELECT id FROM ${ORDERS} o ORDER BY id`, scope)).map((r: { id: string }) => r.id);
  const ledgerOf: Array<{ order_id: string; pending: string; released: string; reversed: string; recovered: string; lost: string }> =
    await db.query(
      `SELECT e.order_id,
              COALESCE(sum(e.amount) FILTER (WHERE e.account = 'seller_pending'), 0) AS pending,
              COALESCE(sum(e.amount) FILTER (WHERE e.account = 'seller_available' AND t.event = 'FUNDS_RELEASED'), 0) AS released,
              COALESCE(-sum(e.amount) FILTER (WHERE e.account = 'seller_available' AND t.event = 'REFUND'), 0) AS reversed,
              COALESCE(-sum(e.amount) FILTER (WHERE e.account = 'seller_available' AND t.event = 'LOSS_RECOVERED'), 0) AS recovered,
              COALESCE(-sum(e.amount) FILTER (WHERE e.account = 'platform_refund_losses'), 0) AS lost
         FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
        WHERE e.order_id = ANY($1) GROUP BY e.order_id`,
      [orderIds],
    );
  const byOrder = new Map(ledgerOf.map((l) => [l.order_id, l]));
  const transfers = await transfersOfOrders(db, orderIds);
  for (const orderId of orderIds) {
    const l = byOrder.get(orderId);
    const ledger = {
      pending: Number(l?.pending ?? 0),
      released: Number(l?.released ?? 0),
      reversed: Number(l?.reversed ?? 0),
      recovered: Number(l?.recovered ?? 0),
      lost: Number(l?.lost ?? 0),
    };
    const views = transfers.get(orderId) ?? [];
    if (ledger.pending < 0)
      out.push({ figure: 'order.pending.non-negative', subject: orderId, reported: ledger.pending, ledger: 0, relation: '≥' });
    // Never more recovered from the seller than the platform lost on the order.
    if (ledger.lost < 0)
      out.push({ figure: 'order.refund-loss.non-negative', subject: orderId, reported: ledger.lost, ledger: 0, relation: '≥' });
    for (const t of views.filter((v) => v.type === 'TRANSFER')) {
      if (t.status === 'COMPLETED' && t.amount !== ledger.released)
        out.push({ figure: 'transfer.released', subject: t.id, reported: t.amount, ledger: ledger.released, relation: '=' });
      if (t.status === 'PENDING' && (t.amount !== ledger.pending || ledger.released !== 0))
        out.push({ figure: 'transfer.pending', subject: t.id, reported: t.amount, ledger: ledger.pending, relation: '=' });
    }
    const sum = (type: string) => views.filter((v) => v.type === type).reduce((s, v) => s + v.amount, 0);
    if (sum('REVERSAL') !== ledger.reversed)
      out.push({ figure: 'order.reversals', subject: orderId, reported: sum('REVERSAL'), ledger: ledger.reversed, relation: '=' });
    if (sum('RECOVERY') !== ledger.recovered)
      out.push({ figure: 'order.recoveries', subject: orderId, reported: sum('RECOVERY'), ledger: ledger.recovered, relation: '=' });
  }

  // Orders: what was paid and refunded, its caps, and the seller fee.
  const orders = `(SELECT o.id, o.total, o.refunded, o.delivery_refunded,
      COALESCE((SELECT sum(amount) FROM adjustments a WHERE a.order_id = o.id AND a.type = 'REFUND'), 0) AS adjusted,
      COALESCE((SELECT sum(r.amount) FROM adjustments a JOIN payment_refunds r ON r.id = a.refund_id
                 WHERE a.order_id = o.id AND r.status = 'SUCCEEDED'), 0) AS simulated,
      COALESCE((SELECT sum(e.amount) FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
                 WHERE t.event = 'REFUND' AND t.order_id = o.id AND e.account = 'refunds'), 0) AS refunds,
      COALESCE((SELECT sum(e.amount) FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
                 WHERE t.event = 'PAYMENT' AND e.order_id = o.id), 0) AS paid,
      COALESCE((SELECT sum(e.amount) FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
                 WHERE t.event = 'PAYMENT' AND e.order_id = o.id AND e.account = 'platform_seller_fee'), 0) AS fee,
      COALESCE((SELECT sum(e.amount) FROM ledger_entries e WHERE e.order_id = o.id AND e.account = 'platform_seller_fee'), 0) AS fee_net,
      COALESCE((SELECT sum(i.refunded) FROM order_items i WHERE i.order_id = o.id), 0) AS lines_refunded
    FROM ${ORDERS} o)`;
  add(
    'order.refunded-vs-adjustments',
    '=',
    await q(`SELECT id AS subject, refunded AS reported, adjusted AS ledger FROM ${orders} x WHERE refunded <> adjusted`, scope),
  );
  add(
    'order.refunded-vs-ledger',
    '=',
    await q(`SELECT id AS subject, refunded AS reported, refunds AS ledger FROM ${orders} x WHERE refunded <> refunds`, scope),
  );
  add(
    'order.refunded-vs-payment-refunds',
    '=',
    await q(`SELECT id AS subject, refunded AS reported, simulated AS ledger FROM ${orders} x WHERE refunded <> simulated`, scope),
  );
  add('order.paid', '=', await q(`SELECT id AS subject, total AS reported, paid AS ledger FROM ${orders} x WHERE total <> paid`, scope));
  add(
    'order.refunded-within-paid',
    '≤',
    await q(`SELECT id AS subject, refunded AS reported, paid AS ledger FROM ${orders} x WHERE refunded > paid`, scope),
  );
  add(
    'order.lines-and-delivery-within-refunded',
    '≤',
    await q(
      `SELECT id AS subject, lines_refunded + delivery_refunded AS reported, refunded AS ledger FROM ${orders} x
        WHERE lines_refunded + delivery_refunded > refunded`,
      scope,
    ),
  );
  const fees: Array<{ id: string; total: number; refunded: number; paid: string; fee: string; fee_net: string }> = await db.query(
    `SELECT id, total, refunded, paid, fee, fee_net FROM ${orders} x`,
    scope,
  );
  for (const o of fees) {
    const rule = sellerFee(o.total, options.sellerFeeBps);
    if (Number(o.fee) !== rule)
      out.push({ figure: 'order.seller-fee', subject: o.id, reported: rule, ledger: Number(o.fee), relation: '=' });
    // Given back in proportion to what was refunded: floor(fee × refunded / paid), all of it once refunded in full.
    const paid = Number(o.paid);
    const net = paid > 0 ? Number(o.fee) - Math.floor((Number(o.fee) * o.refunded) / paid) : 0;
    if (Number(o.fee_net) !== net)
      out.push({ figure: 'order.seller-fee-net-of-refunds', subject: o.id, reported: net, ledger: Number(o.fee_net), relation: '=' });
  }

  // Purchases: the buyer's payment and fee, the invoice, and the simulator's refunds.
  const PURCHASES = `(SELECT * FROM purchases WHERE $1::uuid[] IS NULL OR buyer_id = ANY($1))`;
  const purchases = `(SELECT p.id, p.total, p.fee, p.fee_refunded,
      COALESCE((SELECT -sum(e.amount) FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
                 WHERE t.event = 'REFUND' AND t.purchase_id = p.id AND e.account = 'platform_buyer_fee'), 0) AS buyer_fee_refunded,
      COALESCE((SELECT -sum(e.amount) FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
                 WHERE t.event = 'PAYMENT' AND t.purchase_id = p.id AND e.account = 'buyer_payments'), 0) AS paid,
      COALESCE((SELECT sum(e.amount) FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
                 WHERE t.event = 'PAYMENT' AND t.purchase_id = p.id AND e.account = 'platform_buyer_fee'), 0) AS buyer_fee,
      (SELECT i.total FROM invoices i WHERE i.purchase_id = p.id) AS invoiced,
      COALESCE((SELECT sum(r.amount) FROM payment_refunds r WHERE r.purchase_id = p.id AND r.status = 'SUCCEEDED'), 0) AS simulated,
      COALESCE((SELECT sum(e.amount) FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
                 WHERE t.event = 'REFUND' AND t.purchase_id = p.id AND e.account = 'refunds'), 0) AS refunds
    FROM ${PURCHASES} p)`;
  add(
    'purchase.paid',
    '=',
    await q(`SELECT id AS subject, total AS reported, paid AS ledger FROM ${purchases} x WHERE total <> paid`, [buyers]),
  );
  add(
    'purchase.buyer-fee',
    '=',
    await q(`SELECT id AS subject, fee AS reported, buyer_fee AS ledger FROM ${purchases} x WHERE fee <> buyer_fee`, [buyers]),
  );
  add(
    'purchase.buyer-fee-refunded',
    '=',
    await q(
      `SELECT id AS subject, fee_refunded AS reported, buyer_fee_refunded AS ledger FROM ${purchases} x WHERE fee_refunded <> buyer_fee_refunded`,
      [buyers],
    ),
  );
  add(
    'purchase.invoice',
    '=',
    await q(
      `SELECT id AS subject, COALESCE(invoiced, 0) AS reported, paid AS ledger FROM ${purchases} x WHERE invoiced IS DISTINCT FROM paid`,
      [buyers],
    ),
  );
  add(
    'purchase.payment-refunds',
    '=',
    await q(`SELECT id AS subject, simulated AS reported, refunds AS ledger FROM ${purchases} x WHERE simulated <> refunds`, [buyers]),
  );
  if (!options.scope)
    add(
      'ledger.payment-without-purchase',
      '=',
      await q(`SELECT t.id AS subject, COALESCE(-sum(e.amount) FILTER (WHERE e.account = 'buyer_payments'), 0) AS reported, 0 AS ledger
                 FROM ledger_transactions t LEFT JOIN ledger_entries e ON e.transaction_id = t.id
                WHERE t.event = 'PAYMENT' AND NOT EXISTS (SELECT 1 FROM purchases p WHERE p.id = t.purchase_id) GROUP BY t.id`),
    );

  // Account stats: `spent` as GET /user/account/stats reports it (a fresh service: no cache)
  // against the buyer's payments less their refunds in the ledger; never negative.
  const accountStats = new AccountStatsService(db, async () => ({ messages: 0, conversations: 0 }));
  const spentRows: Array<{ buyer_id: string; spent: string }> = await db.query(
    `SELECT p.buyer_id,
            COALESCE(sum((SELECT -sum(e.amount) FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
                            WHERE t.purchase_id = p.id AND t.event = 'PAYMENT' AND e.account = 'buyer_payments')), 0)
          - COALESCE(sum((SELECT sum(e.amount) FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
                            WHERE t.purchase_id = p.id AND t.event = 'REFUND' AND e.account = 'refunds')), 0) AS spent
       FROM ${PURCHASES} p GROUP BY p.buyer_id ORDER BY p.buyer_id`,
    [buyers],
  );
  for (const b of spentRows) {
    const { spent } = await accountStats.get(b.buyer_id);
    if (spent !== Number(b.spent))
      out.push({ figure: 'account.spent', subject: b.buyer_id, reported: spent, ledger: Number(b.spent), relation: '=' });
    if (spent < 0) out.push({ figure: 'account.spent.non-negative', subject: b.buyer_id, reported: spent, ledger: 0, relation: '≥' });
  }

  // Seller stats hold no money figure (docs/money.md "Stats"); their order count is ledger-backed:
  // every order is paid, so it is the number of the seller's orders with a PAYMENT posting.
  const sellerStats = new SellerStatsService(db);
  const paidOrders: Array<{ seller_id: string; paid: number }> = await db.query(
    `SELECT a.user_id AS seller_id,
            (SELECT count(DISTINCT o.id) FROM orders o JOIN ledger_entries e ON e.order_id = o.id
               JOIN ledger_transactions t ON t.id = e.transaction_id AND t.event = 'PAYMENT'
              WHERE o.seller_id = a.user_id)::int AS paid
       FROM seller_accounts a WHERE $1::uuid[] IS NULL OR a.user_id = ANY($1) ORDER BY a.user_id`,
    [sellers],
  );
  for (const s of paidOrders) {
    const stats = await sellerStats.get(s.seller_id);
    if (stats.orders.total !== s.paid)
      out.push({ figure: 'seller-stats.orders.total', subject: s.seller_id, reported: stats.orders.total, ledger: s.paid, relation: '=' });
  }
  return out;
}

/** One line per difference, for the `reconcile` command. */
export function describeDifference(d: Difference): string {
  const rule = d.relation === '=' ? 'should equal' : d.relation === '≤' ? 'should be at most' : 'should be at least';
  return `${d.figure} ${d.subject}: reported ${d.reported}, ${rule} ${d.ledger}`;
}
