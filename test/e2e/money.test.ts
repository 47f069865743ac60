import { reconcileFigures } from '../../src/services/money/reconciliation';
import { ensurePayoutSchedule } from '../../src/temporal/payout-schedule';
import { moneyWorkflowIds } from '../../src/modules/money';
import { workflowIds } from '../../src/temporal/workflow-ids';
import { registerUser, type TestUser } from '../support/api';
import { apiClient, dataOf, expectStatus } from '../support/client';
import { shipAndReceive } from '../support/money';
import { buy, sellerWithListings } from '../support/shop';
import { eventually, startStack, type TestStack } from '../support/stack';

/**
 * Money end to end over the real API, worker, start dispatcher, Temporal dev server and
 * Postgres: payment → shipment → receipt → funds released after the hold → the `payout-run`
 * Schedule pays each seller → a dispute's accepted REFUND takes the paid-out money back from
 * the seller's later earnings. Short hold and transit (environment overrides); every
 * asynchronous step is awaited by polling what the API shows, never by sleeping.
 */
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ FUNDS_HOLD_SECONDS: '1', PAYOUT_TRANSIT_SECONDS: '1', SELLER_FEE_BPS: '500' });
}, 120_000);
afterAll(() => stack?.stop());

const ASYNC_MS = 60_000;
const fee = (orderTotal: number) => Math.floor((orderTotal * 500) / 10_000);

describe('money end to end (API → start outbox → worker → Temporal dev server → Postgres)', () => {
  it('two sellers paid, released, paid out by the payout run; a refund afterwards reverses from available', async () => {
    const { api, env } = stack;
    const as = (user: TestUser) => apiClient(api, user.bearer);
    const balance = (seller: TestUser) => dataOf(as(seller).GET('/seller/balance'));
    const transfersOf = async (seller: TestUser) => {
      const page = await dataOf(as(seller).GET('/seller/transfers'));
      expect(page.nextCursor).toBeNull(); // every transfer of these journeys fits one page
      return page.items;
    };
    const payoutsOf = async (seller: TestUser) => (await dataOf(as(seller).GET('/seller/payouts'))).payouts;
    const sellerOrderOf = (seller: TestUser, id: string) => dataOf(as(seller).GET('/seller/orders/{id}', { params: { path: { id } } }));
    const thePurchase = (id: string) => ({ params: { path: { id } } });

    // Seller A: one card at £20 and one at £12; seller B: one at £10. Delivery £1.50 each.
    const a = await sellerWithListings(api, [
      { quantity: 1, price: 2000 },
      { quantity: 1, price: 1200 },
    ]);
    const b = await sellerWithListings(api, [{ quantity: 1, price: 1000 }]);
    const buyer = await registerUser(api, 'moneybuyer');

    // One checkout buying from both, paid on the payment simulator's page.
    const purchase = await buy(api, buyer, [a.listingIds[0]!, b.listingIds[0]!]);
    expect(purchase.orders).toHaveLength(2);
    const orderOf = (sellerId: string) => purchase.orders.find((o) => o.sellerId === sellerId)!;
    const orderA = orderOf(a.seller.id);
    const orderB = orderOf(b.seller.id);
    expect([orderA.total, orderB.total]).toEqual([2150, 1150]);
    const shareA = orderA.total - fee(orderA.total); // 2150 − 107 = 2043
    const shareB = orderB.total - fee(orderB.total); // 1150 − 57 = 1093
    expect(await balance(a.seller)).toMatchObject({ pending: shareA, available: 0 });
    expect(await balance(b.seller)).toMatchObject({ pending: shareB, available: 0 });

    // Both ship, the buyer receives both: a PENDING transfer each, then released after the hold.
    await shipAndReceive(api, a.seller, buyer, purchase.id, orderA.id);
    await shipAndReceive(api, b.seller, buyer, purchase.id, orderB.id);
    expect((await dataOf(as(buyer).GET('/user/purchases/{id}', thePurchase(purchase.id)))).status).toBe('COMPLETED');
    for (const [seller, order, share] of [
      [a.seller, orderA, shareA],
      [b.seller, orderB, shareB],
    ] as const) {
      const released = await eventually(async () => {
        const transfers = await transfersOf(seller);
        return transfers.length === 1 && transfers[0]!.status === 'COMPLETED' ? transfers : null;
      }, ASYNC_MS);
      expect(released).toEqual([
        expect.objectContaining({ orderId: order.id, type: 'TRANSFER', status: 'COMPLETED', amount: share, currency: 'GBP' }),
      ]);
      expect((await sellerOrderOf(seller, order.id)).transfers).toEqual(released);
      expect(await balance(seller)).toMatchObject({ pending: 0, available: share });
    }

    // The payout run, as the Schedule runs it: the worker's start creates `payout-run`, and an
    // operator's "trigger now" starts its action at once.
    expect(
      await ensurePayoutSchedule(env.client, { intervalMs: api.config.money.payoutIntervalMs, taskQueue: api.config.temporal.taskQueue }),
    ).toBe(true);
    const schedule = env.client.schedule.getHandle(workflowIds.payoutRunSchedule);
    // Paused, so that its own daily run (00:00 UTC) cannot add a second run to this test; a
    // trigger still runs a paused Schedule's action.
    await schedule.pause('end-to-end test: runs on trigger only');
    await schedule.trigger();
    const run = await eventually(async () => (await schedule.describe()).info.recentActions[0]?.action, ASYNC_MS);
    expect((await schedule.describe()).info.recentActions).toHaveLength(1);
    expect(run.workflow.workflowId).toMatch(/^payout-run-/);
    expect(await env.client.workflow.getHandle(run.workflow.workflowId, run.workflow.firstExecutionRunId).result()).toBe(2);

    for (const [seller, share] of [
      [a.seller, shareA],
      [b.seller, shareB],
    ] as const) {
      const paid = await eventually(async () => {
        const payouts = await payoutsOf(seller);
        return payouts.length === 1 && payouts[0]!.status === 'PAID' ? payouts : null;
      }, ASYNC_MS);
      const [{ run_date: runDate, arrival_date: arrival }] = await api.database.db.query(
        `SELECT to_char(run_date, 'YYYY-MM-DD') AS run_date, to_char(run_date + $2::int, 'YYYY-MM-DD') AS arrival_date FROM payouts WHERE seller_id = $1`,
        [seller.id, api.config.money.payoutArrivalDays],
      );
      expect(paid).toEqual([{ id: expect.any(String), amount: share, currency: 'GBP', arrivalDate: arrival, status: 'PAID' }]);
      expect(await env.client.workflow.getHandle(moneyWorkflowIds.payout(seller.id, runDate)).result()).toBe('PAID');
      expect(await balance(seller)).toMatchObject({ pending: 0, available: 0 });
    }

    // Seller A sells again (£12 + £1.50 = 1350, fee 67): released, not yet paid out.
    const later = await buy(api, buyer, [a.listingIds[1]!]);
    const laterOrder = later.orders[0]!;
    const laterShare = laterOrder.total - fee(laterOrder.total); // 1283
    await shipAndReceive(api, a.seller, buyer, later.id, laterOrder.id);
    await eventually(async () => ((await balance(a.seller)).available === laterShare ? true : null), ASYNC_MS);

    // A dispute on the first order, already paid out: the seller proposes a £10 refund, the buyer accepts.
    const { items } = await sellerOrderOf(a.seller, orderA.id);
    await expectStatus(
      as(buyer).PUT('/user/purchases/{id}', {
        ...thePurchase(purchase.id),
        body: { action: 'dispute', orderId: orderA.id, reason: 'DAMAGED', comment: 'Creased', items: [{ id: items[0]!.id, quantity: 1 }] },
      }),
      200,
    );
    const [opened] = await dataOf(as(buyer).GET('/user/cases'));
    const theCase = { params: { path: { id: opened!.id } } };
    const proposed = await eventually(async () => {
      const res = await as(a.seller).PUT('/seller/cases/{id}', {
        ...theCase,
        body: { action: 'propose', type: 'REFUND', amount: 1000, comment: 'Part refund' },
      });
      if (res.response.status === 503) return null; // the case workflow's start is still waiting in the outbox
      expect(res.response.status).toBe(200);
      return res.data;
    }, ASYNC_MS);
    const outcomeId = proposed.outcomes[0]!.id;
    const accepted = await dataOf(as(buyer).PUT('/user/cases/{id}', { ...theCase, body: { action: 'accept', outcomeId } }));
    expect(accepted.status).toBe('CLOSED');

    // The fee is given back in proportion (floor(107 × 1000 / 2150) = 49); the seller bears 951,
    // nothing pending for the order any more, so all of it comes out of available: a REVERSAL.
    const feeBack = Math.floor((fee(orderA.total) * 1000) / orderA.total);
    const reversed = 1000 - feeBack;
    const adjustment = {
      id: expect.any(String),
      orderId: orderA.id,
      caseId: opened!.id,
      reason: 'CASE',
      type: 'REFUND',
      kind: 'PARTIAL',
      amount: 1000,
      currency: 'GBP',
      refundId: expect.any(String),
      createdAt: expect.any(String),
    };
    const sellerOrder = await eventually(async () => {
      const order = await sellerOrderOf(a.seller, orderA.id);
      return order.adjustments.length > 0 ? order : null;
    }, ASYNC_MS);
    expect(sellerOrder.adjustments).toEqual([adjustment]);
    const buyerView = await dataOf(as(buyer).GET('/user/purchases/{id}', thePurchase(purchase.id)));
    expect(buyerView.orders.find((o) => o.id === orderA.id)!.adjustments).toEqual(sellerOrder.adjustments);
    expect(sellerOrder.transfers.map((t) => [t.type, t.status, t.amount])).toEqual([
      ['TRANSFER', 'COMPLETED', shareA],
      ['REVERSAL', 'COMPLETED', reversed],
    ]);
    const transfers = await transfersOf(a.seller);
    expect(transfers[0]).toMatchObject({ orderId: orderA.id, type: 'REVERSAL', status: 'COMPLETED', amount: reversed });
    expect(transfers.map((t) => t.type)).toEqual(['REVERSAL', 'TRANSFER', 'TRANSFER']);

    // Balances agree with the ledger, and the ledger with what happened.
    const db = api.database.db;
    expect(await db.query(`SELECT transaction_id FROM ledger_entries GROUP BY transaction_id HAVING sum(amount) <> 0`)).toEqual([]);
    for (const [seller, expected] of [
      [a.seller, { pending: 0, available: laterShare - reversed }],
      [b.seller, { pending: 0, available: 0 }],
    ] as const) {
      const sellerBalance = await balance(seller);
      const [sums] = await db.query(
        `SELECT COALESCE(sum(amount) FILTER (WHERE account = 'seller_pending'), 0)::int AS pending,
                COALESCE(sum(amount) FILTER (WHERE account = 'seller_available'), 0)::int AS available,
                COALESCE(sum(amount) FILTER (WHERE account = 'payouts_in_transit'), 0)::int AS "inTransit"
           FROM ledger_entries WHERE seller_id = $1`,
        [seller.id],
      );
      expect(sellerBalance).toMatchObject(expected);
      expect(sums).toEqual({ ...expected, inTransit: 0 });
    }
    const accounts = Object.fromEntries(
      (await db.query(`SELECT account, sum(amount)::int AS total FROM ledger_entries GROUP BY account`)).map(
        (r: { account: string; total: number }) => [r.account, r.total],
      ),
    );
    expect(accounts).toMatchObject({
      payouts: shareA + shareB,
      refunds: 1000,
      platform_seller_fee: fee(orderA.total) + fee(orderB.total) + fee(laterOrder.total) - feeBack,
      seller_pending: 0,
      seller_available: laterShare - reversed,
    });
    expect(accounts.platform_refund_losses ?? 0).toBe(0);
    const events = await db.query(`SELECT event, count(*)::int AS n FROM ledger_transactions GROUP BY event ORDER BY event`);
    expect(events).toEqual([
      { event: 'FUNDS_RELEASED', n: 3 },
      { event: 'PAYMENT', n: 2 },
      { event: 'PAYOUT_CREATED', n: 2 },
      { event: 'PAYOUT_PAID', n: 2 },
      { event: 'REFUND', n: 1 },
    ]);
    // And every figure the service reports agrees with the ledger (the `reconcile` command's checks).
    expect(await reconcileFigures(db, { sellerFeeBps: 500 })).toEqual([]);
  }, 300_000);
});
