import { newId } from '../../src/ids';
import { postLedger } from '../../src/services/money/ledger';
import { reconcileFigures } from '../../src/services/money/reconciliation';
import { releaseOrderFunds } from '../../src/services/money/transfers';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { acceptRefund } from '../support/money';
import { commitPaidCheckout } from '../support/purchases';

/**
 * `reconcileFigures` (docs/money.md "Reconcile") on Postgres: a money history built through the
 * real services agrees with its ledger everywhere; then one figure of each kind is corrupted with
 * a direct statement (the database's CHECKs and the append-only ledger left on: the ledger is
 * corrupted by a new balanced posting) and each is reported, naming the figure and its subject.
 */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const db = () => api.database.db;
const reconcile = () => reconcileFigures(db(), { sellerFeeBps: 500 });

async function receive(orderId: string, buyerId: string): Promise<void> {
  await db().query(`UPDATE orders SET status = 'SHIPPED', shipped_at = now() WHERE id = $1`, [orderId]);
  await db().query(`UPDATE order_items SET status = 'SHIPPED' WHERE order_id = $1`, [orderId]);
  await api.services.orderUpdates.apply(orderId, { role: 'buyer', userId: buyerId }, { action: 'receive' });
}

async function payOut(sellerId: string, runDate: string, fails = false): Promise<string> {
  await db().query(
    `INSERT INTO simulator_bank_accounts (seller_id, fails) VALUES ($1, $2) ON CONFLICT (seller_id) DO UPDATE SET fails = $2`,
    [sellerId, fails],
  );
  const payoutId = await api.services.sellerMoney.createPayout(sellerId, runDate);
  if (!payoutId) throw new Error('nothing to pay out');
  await api.services.sellerMoney.markPayoutInTransit(payoutId);
  await api.services.sellerMoney.settlePayout(payoutId);
  return payoutId;
}

describe('reconcileFigures', () => {
  it('finds no difference in a history made by the services, and reports each corrupted figure', async () => {
    const [a, b, c, d] = [await registerSeller(api), await registerSeller(api), await registerSeller(api), await registerSeller(api)];
    const buyers: TestUser[] = [];
    /** One paid order from a buyer of its own (so a buyer's figures name one corruption). */
    const order = async (seller: TestUser, total: number) => {
      const buyer = await registerUser(api);
      buyers.push(buyer);
      return { ...(await commitPaidCheckout(db(), buyer.id, seller.id, total)), buyer, seller };
    };

    // Seller A: released and paid out; then a refund after the payout (the platform's loss),
    // repaid by A's next release (a RECOVERY); a third order received, its release pending.
    const released = await order(a, 2000);
    await receive(released.orderId, released.buyer.id);
    expect(await releaseOrderFunds(db(), released.orderId)).toBe('released');
    const paidA = await payOut(a.id, '2031-01-01');
    await acceptRefund(api, released.orderId, 1000);
    const repaying = await order(a, 3000);
    await receive(repaying.orderId, repaying.buyer.id);
    await releaseOrderFunds(db(), repaying.orderId);
    const pendingRelease = await order(a, 1500);
    await receive(pendingRelease.orderId, pendingRelease.buyer.id);

    // Seller B: released, a refund reversed from available, a payout refused by the bank and one paid.
    const reversed = await order(b, 4000);
    await receive(reversed.orderId, reversed.buyer.id);
    await releaseOrderFunds(db(), reversed.orderId);
    await acceptRefund(api, reversed.orderId, 700);
    const failedB = await payOut(b.id, '2031-01-02', true);
    const paidB = await payOut(b.id, '2031-01-03');

    // Seller C: refunds before the release, a cancellation, an order refunded in full.
    const refundedEarly = await order(c, 2500);
    await acceptRefund(api, refundedEarly.orderId, 400);
    await receive(refundedEarly.orderId, refundedEarly.buyer.id);
    await releaseOrderFunds(db(), refundedEarly.orderId);
    const partly = await order(c, 1800);
    await acceptRefund(api, partly.orderId, 300);
    const partly2 = await order(c, 1600);
    await acceptRefund(api, partly2.orderId, 200);
    const cancelled = await order(c, 900);
    await acceptRefund(api, cancelled.orderId, 100);
    await api.services.orderUpdates.apply(cancelled.orderId, { role: 'seller', userId: c.id }, { action: 'cancel' });
    const full = await order(c, 1200);
    await acceptRefund(api, full.orderId, 1200);

    // Seller D: orders only paid.
    const fee = await order(d, 3333);
    const feeRule = await order(d, 1234);
    const invoiced = await order(d, 999);

    expect(await reconcile()).toEqual([]);
    // Each buyer's `spent` as the stats route shows it, positive and net of refunds.
    const stats = (await api.http.get('/user/account/stats').set(cancelled.buyer.bearer).expect(200)).body;
    expect(stats.spent).toBe(0);

    // Corruptions, one figure of each kind, each on a subject of its own.
    const transferOf = async (orderId: string, type: string) =>
      (await db().query(`SELECT id FROM transfers WHERE order_id = $1 AND type = $2`, [orderId, type]))[0].id as string;
    const released1 = await transferOf(released.orderId, 'TRANSFER');
    await db().query(`UPDATE transfers SET amount = amount - 1 WHERE id = $1`, [released1]);
    await db().query(`UPDATE transfers SET amount = amount + 1 WHERE order_id = $1 AND type = 'REVERSAL'`, [reversed.orderId]);
    await db().query(`UPDATE transfers SET amount = amount + 2 WHERE order_id = $1 AND type = 'RECOVERY'`, [released.orderId]);
    await db().query(`UPDATE orders SET refunded = refunded - 1 WHERE id = $1`, [refundedEarly.orderId]);
    await db().query(`UPDATE payment_refunds SET amount = amount + 1 WHERE purchase_id = $1`, [partly.purchaseId]);
    await db().query(`UPDATE orders SET delivery_charge = total, delivery_refunded = refunded + 1 WHERE id = $1`, [partly2.orderId]);
    await db().query(`UPDATE payouts SET amount = amount + 1 WHERE id = $1`, [paidA]);
    await db().query(`UPDATE payouts SET status = 'IN_TRANSIT' WHERE id = $1`, [paidB]);
    await db().query(`UPDATE payouts SET status = 'PAID' WHERE id = $1`, [failedB]);
    await db().query(`UPDATE purchases SET total = total + 5 WHERE id = $1`, [cancelled.purchaseId]);
    await db().query(`UPDATE invoices SET total = total - 1 WHERE purchase_id = $1`, [invoiced.purchaseId]);
    // The ledger is append-only: wrong money there is a new posting, balanced but false.
    await db().transaction(async (tx) => {
      // Seller D's available taken below zero.
      await postLedger(tx, {
        event: 'LOSS_RECOVERED',
        idempotencyKey: `corrupt:available:${d.id}`,
        entries: [
          { account: 'seller_available', amount: -50, sellerId: d.id },
          { account: 'platform_refund_losses', amount: 50 },
        ],
      });
      // A fee given back without a refund, and a payment fee off the rule.
      await postLedger(tx, {
        event: 'LOSS_RECOVERED',
        idempotencyKey: `corrupt:fee:${fee.orderId}`,
        entries: [
          { account: 'platform_seller_fee', amount: -5, orderId: fee.orderId },
          { account: 'platform_buyer_fee', amount: 5 },
        ],
      });
      await postLedger(tx, {
        event: 'PAYMENT',
        idempotencyKey: `corrupt:fee-rule:${feeRule.orderId}`,
        purchaseId: feeRule.purchaseId,
        orderId: feeRule.orderId,
        entries: [
          { account: 'platform_seller_fee', amount: 1, orderId: feeRule.orderId },
          { account: 'seller_pending', amount: -1, sellerId: d.id, orderId: feeRule.orderId },
        ],
      });
    });
    // An order that was never paid, counted by the seller stats.
    await db().query(`CREATE TEMP TABLE unpaid AS SELECT * FROM orders WHERE id = $1`, [full.orderId]);
    await db().query(`UPDATE unpaid SET id = $1, refunded = 0, delivery_refunded = 0, status = 'ACCEPTED'`, [newId()]);
    await db().query(`INSERT INTO orders SELECT * FROM unpaid`);
    const [{ id: unpaidId }] = await db().query(`SELECT id FROM unpaid`);
    await db().query(`DROP TABLE unpaid`);

    const differences = await reconcile();
    const reported = (figure: string, subject: string): [string, string] => [figure, subject];
    const expected = [
      reported('transfer.released', released1),
      reported('order.reversals', reversed.orderId),
      reported('order.recoveries', released.orderId),
      reported('order.refunded-vs-adjustments', refundedEarly.orderId),
      reported('order.refunded-vs-ledger', refundedEarly.orderId),
      reported('order.refunded-vs-payment-refunds', refundedEarly.orderId),
      reported('order.refunded-vs-payment-refunds', partly.orderId),
      reported('purchase.payment-refunds', partly.purchaseId),
      reported('account.spent', partly.buyer.id),
      reported('order.lines-and-delivery-within-refunded', partly2.orderId),
      reported('payout.created', paidA),
      reported('payout.paid', paidA),
      reported('payouts.paid-total', 'payouts'),
      reported('seller.payouts-in-transit', b.id),
      reported('payout.paid', paidB),
      reported('payout.paid', failedB),
      reported('payout.failed', failedB),
      reported('purchase.paid', cancelled.purchaseId),
      reported('account.spent', cancelled.buyer.id),
      reported('purchase.invoice', invoiced.purchaseId),
      reported('seller.available.non-negative', d.id),
      reported('order.seller-fee-net-of-refunds', fee.orderId),
      reported('order.seller-fee', feeRule.orderId),
      reported('order.paid', unpaidId),
      reported('seller-stats.orders.total', c.id),
    ];
    expect(differences).toEqual(expect.arrayContaining(expected.map(([figure, subject]) => expect.objectContaining({ figure, subject }))));
    // Nothing else: every difference is about a corrupted subject (some corruptions show in two figures).
    const subjects = new Set(expected.map(([, subject]) => subject));
    expect(differences.filter((x) => !subjects.has(x.subject))).toEqual([]);
    expect(differences.find((x) => x.figure === 'seller.available.non-negative')).toEqual({
      figure: 'seller.available.non-negative',
      subject: d.id,
      reported: -50,
      ledger: 0,
      relation: '≥',
    });
    expect(differences.find((x) => x.figure === 'transfer.released')).toMatchObject({ reported: 2000 - 100 - 1, ledger: 1900 });
  });
});
