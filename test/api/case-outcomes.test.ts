import { newId } from '../../src/ids';
import { recordCaseChange, type CaseChange } from '../../src/services/cases/case-changes';
import { caseChangeStarts } from '../../src/modules/cases';
import type { OutcomeState } from '../../src/domain/cases/machine';
import { registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { fillBasket, pay, sellerWithListings } from '../support/shop';

/**
 * What accepted RETURN and REPLACEMENT outcomes move, over HTTP on Postgres: the dispute is
 * opened through the purchase route, the case workflow's decisions are written with its own
 * activity (`recordCaseChange`; the workflow itself is tested on the time-skipping server), and
 * stock, adjustments, balances and stats are read back.
 */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const q = <T = Record<string, unknown>>(sql: string, args: unknown[] = []): Promise<T[]> => api.database.db.query(sql, args);
const options = { reviewWindowSeconds: 60, ...caseChangeStarts };

/**
 * A seller with two listings (3 units at 1000 each, 150 delivery); the buyer buys 2 of the first
 * and 1 of the second (order 3150, seller fee 157), the order ships and is received.
 */
async function receivedOrder() {
  const { seller, listingIds } = await sellerWithListings(api, [
    { quantity: 3, price: 1000 },
    { quantity: 3, price: 1000 },
  ]);
  const buyer = await registerUser(api);
  const basketId = await fillBasket(api, buyer, [
    { listingId: listingIds[0]!, quantity: 2 },
    { listingId: listingIds[1]!, quantity: 1 },
  ]);
  const checkout = await api.http.post(`/basket/${basketId}/checkout`).set(buyer.bearer).send({ successUrl: 'https://shop.example/ok' });
  const purchaseId = await pay(api, checkout.body.url);
  const [{ id: orderId }] = (await api.http.get('/seller/orders').set(seller.bearer).expect(200)).body;
  const { items } = (await api.http.get(`/seller/orders/${orderId}`).set(seller.bearer).expect(200)).body;
  await api.http
    .post(`/seller/orders/${orderId}`)
    .set(seller.bearer)
    .send({
      action: 'ship',
      shipment: { carrier: 'RM', trackingNumber: 'RM1' },
      items: items.map((i: { id: string; quantity: number }) => ({ id: i.id, quantity: i.quantity })),
    })
    .expect(204);
  await api.http.put(`/user/purchases/${purchaseId}`).set(buyer.bearer).send({ action: 'receive', orderId }).expect(200);
  const itemOf = (listingId: string) => items.find((i: { listingId: string }) => i.listingId === listingId).id as string;
  return { seller, buyer, purchaseId, orderId, listingIds, itemIds: listingIds.map(itemOf) };
}

/** The buyer disputes `items` proposing one outcome of `type`; returns the case and outcome. */
async function dispute(
  o: { buyer: TestUser; purchaseId: string; orderId: string },
  type: 'RETURN' | 'REPLACEMENT',
  items: Array<{ id: string; quantity: number }>,
) {
  await api.http
    .put(`/user/purchases/${o.purchaseId}`)
    .set(o.buyer.bearer)
    .send({ action: 'dispute', orderId: o.orderId, reason: 'DAMAGED', items, outcomes: [{ type, comment: 'please' }] })
    .expect(200);
  const [c] = await q<{ case_id: string; outcome_id: string }>(
    `SELECT c.id AS case_id, o.id AS outcome_id FROM cases c JOIN case_outcomes o ON o.case_id = c.id
      WHERE c.order_id = $1 AND o.type = $2 ORDER BY c.created_at DESC LIMIT 1`,
    [o.orderId, type],
  );
  const outcome: OutcomeState = { id: c!.outcome_id, type, party: 'BUYER', status: 'ACCEPTED' };
  return { caseId: c!.case_id, outcome };
}

/** A decision of the case workflow, written by its activity. */
function decide(caseId: string, outcome: OutcomeState, kind: 'accept' | 'resolve', status: CaseChange['status']) {
  return recordCaseChange(api.database.db, { caseId, changeId: newId(), actor: 'SELLER', kind, status, outcomes: [outcome] }, options);
}

const quantity = async (listingId: string) =>
  (await q<{ quantity: number }>(`SELECT quantity FROM listings WHERE id = $1`, [listingId]))[0]!.quantity;
const balance = async (seller: TestUser) => (await api.http.get('/seller/balance').set(seller.bearer).expect(200)).body;
const accountStats = async (buyer: TestUser) => (await api.http.get('/user/account/stats').set(buyer.bearer).expect(200)).body;

describe('REFUND outcome', () => {
  it("refunds its amount and the buyer's cached spent and the seller's cached case count follow", async () => {
    const o = await receivedOrder();
    await api.http
      .put(`/user/purchases/${o.purchaseId}`)
      .set(o.buyer.bearer)
      .send({
        action: 'dispute',
        orderId: o.orderId,
        reason: 'DAMAGED',
        items: [{ id: o.itemIds[0], quantity: 1 }],
        outcomes: [{ type: 'REFUND', amount: 700 }],
      })
      .expect(200);
    const [c] = await q<{ case_id: string; outcome_id: string }>(
      `SELECT c.id AS case_id, o.id AS outcome_id FROM cases c JOIN case_outcomes o ON o.case_id = c.id WHERE c.order_id = $1`,
      [o.orderId],
    );
    // Both read (and cached) before the refund.
    const spent = (await accountStats(o.buyer)).spent;
    expect((await api.http.get('/seller/stats').set(o.seller.bearer).expect(200)).body.cases).toEqual({ open: 1 });

    await decide(c!.case_id, { id: c!.outcome_id, type: 'REFUND', party: 'BUYER', status: 'ACCEPTED' }, 'accept', 'CLOSED');

    expect((await accountStats(o.buyer)).spent).toBe(spent - 700);
    expect((await api.http.get('/seller/stats').set(o.seller.bearer).expect(200)).body.cases).toEqual({ open: 0 });
    expect(await quantity(o.listingIds[0]!)).toBe(1); // a refund alone moves no stock
  });
});

describe('RETURN outcome', () => {
  it('moves nothing when accepted; when the seller resolves it the units go back on sale and their value is refunded', async () => {
    const o = await receivedOrder();
    expect(await quantity(o.listingIds[0]!)).toBe(1);
    const share = 3150 - 157;
    const { caseId, outcome } = await dispute(o, 'RETURN', [{ id: o.itemIds[0]!, quantity: 2 }]);
    const spentBefore = (await accountStats(o.buyer)).spent;

    await decide(caseId, outcome, 'accept', 'SETTLED');
    expect(await quantity(o.listingIds[0]!)).toBe(1);
    expect((await api.http.get(`/seller/orders/${o.orderId}`).set(o.seller.bearer)).body.adjustments).toEqual([]);
    expect(await balance(o.seller)).toMatchObject({ pending: share, available: 0 });

    await decide(caseId, outcome, 'resolve', 'CLOSED');
    // Both returned units are on sale again, as a cancellation restores them.
    expect(await quantity(o.listingIds[0]!)).toBe(3);
    const order = (await api.http.get(`/seller/orders/${o.orderId}`).set(o.seller.bearer).expect(200)).body;
    expect(order.adjustments).toEqual([
      expect.objectContaining({ caseId, reason: 'CASE', type: 'REFUND', kind: 'PARTIAL', amount: 2000, refundId: expect.any(String) }),
    ]);
    const [refund] = await q(`SELECT amount::int AS amount, status FROM payment_refunds WHERE id = $1`, [order.adjustments[0].refundId]);
    expect(refund).toEqual({ amount: 2000, status: 'SUCCEEDED' });
    // The platform gives back floor(157 × 2000 / 3150) = 99 of its fee; the seller's pending share bears the rest.
    expect(await balance(o.seller)).toMatchObject({ pending: share - (2000 - 99), available: 0 });
    const purchase = (await api.http.get(`/user/purchases/${o.purchaseId}`).set(o.buyer.bearer).expect(200)).body;
    expect(purchase.orders[0].adjustments).toEqual(order.adjustments);
    // The buyer's cached `spent` is net of the refund: the refund marked the stats stale.
    expect((await accountStats(o.buyer)).spent).toBe(spentBefore - 2000);
    expect(
      await q(`SELECT data->>'amount' AS amount FROM outbox_events WHERE type = 'REFUND_CREATED' AND data->>'orderId' = $1`, [o.orderId]),
    ).toEqual([{ amount: '2000' }]);

    // The same resolution written again (a retried write under a new id) moves nothing twice.
    await decide(caseId, outcome, 'resolve', 'CLOSED');
    expect(await quantity(o.listingIds[0]!)).toBe(3);
    expect((await api.http.get(`/seller/orders/${o.orderId}`).set(o.seller.bearer)).body.adjustments).toHaveLength(1);
    expect(await q(`SELECT transaction_id FROM ledger_entries GROUP BY transaction_id HAVING sum(amount) <> 0`)).toEqual([]);
  });
});

describe('REPLACEMENT outcome', () => {
  it('takes the replaced units off sale, moves no money, and shows a REPLACEMENT adjustment on the order', async () => {
    const o = await receivedOrder();
    expect(await quantity(o.listingIds[1]!)).toBe(2);
    const { caseId, outcome } = await dispute(o, 'REPLACEMENT', [{ id: o.itemIds[1]!, quantity: 1 }]);
    const before = { balance: await balance(o.seller), spent: (await accountStats(o.buyer)).spent };
    const versionBefore = (
      await q<{ v: string }>(`SELECT stats_version::text AS v FROM seller_accounts WHERE user_id = $1`, [o.seller.id])
    )[0]!.v;

    await decide(caseId, outcome, 'accept', 'CLOSED');

    expect(await quantity(o.listingIds[1]!)).toBe(1);
    expect(await quantity(o.listingIds[0]!)).toBe(1);
    const order = (await api.http.get(`/seller/orders/${o.orderId}`).set(o.seller.bearer).expect(200)).body;
    expect(order.adjustments).toEqual([
      expect.objectContaining({ caseId, reason: 'CASE', type: 'REPLACEMENT', kind: 'PARTIAL', amount: 0, refundId: null }),
    ]);
    const purchase = (await api.http.get(`/user/purchases/${o.purchaseId}`).set(o.buyer.bearer).expect(200)).body;
    expect(purchase.orders[0].adjustments).toEqual(order.adjustments);
    expect(await balance(o.seller)).toEqual(before.balance);
    expect((await accountStats(o.buyer)).spent).toBe(before.spent);
    expect(await q(`SELECT 1 FROM payment_refunds WHERE purchase_id = $1`, [o.purchaseId])).toEqual([]);
    // The stock change is in the seller's cached listing figures: their stats version moved with it.
    const [after] = await q<{ v: string }>(`SELECT stats_version::text AS v FROM seller_accounts WHERE user_id = $1`, [o.seller.id]);
    expect(BigInt(after!.v)).toBeGreaterThan(BigInt(versionBefore));

    await decide(caseId, outcome, 'accept', 'CLOSED'); // retried: nothing twice
    expect(await quantity(o.listingIds[1]!)).toBe(1);
    expect((await api.http.get(`/seller/orders/${o.orderId}`).set(o.seller.bearer)).body.adjustments).toHaveLength(1);
  });

  it('records the replacement of the whole order as FULL, and leaves a listing with too few units on sale untouched', async () => {
    const o = await receivedOrder();
    // Another checkout holds the first listing's last unit: nothing of it is on sale.
    await q(`UPDATE listings SET reserved = quantity WHERE id = $1`, [o.listingIds[0]]);
    const { caseId, outcome } = await dispute(o, 'REPLACEMENT', [
      { id: o.itemIds[0]!, quantity: 2 },
      { id: o.itemIds[1]!, quantity: 1 },
    ]);
    await decide(caseId, outcome, 'accept', 'CLOSED');
    expect(await q(`SELECT quantity, reserved FROM listings WHERE id = $1`, [o.listingIds[0]])).toEqual([{ quantity: 1, reserved: 1 }]);
    expect(await quantity(o.listingIds[1]!)).toBe(1);
    const order = (await api.http.get(`/seller/orders/${o.orderId}`).set(o.seller.bearer).expect(200)).body;
    expect(order.adjustments).toEqual([expect.objectContaining({ type: 'REPLACEMENT', kind: 'FULL', amount: 0 })]);
  });
});
