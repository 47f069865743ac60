import { newId } from '../../src/ids';
import type { OutcomeType } from '../../src/domain/cases/machine';
import { recordCaseChange } from '../../src/services/cases/case-changes';
import { caseChangeStarts } from '../../src/modules/cases';
import { registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertCase } from '../support/cases';
import { shipAndReceive } from '../support/money';
import { fillBasket, pay, sellerWithListings } from '../support/shop';

/**
 * Order states and refund caps that follow the money (docs/money.md "How much", "Refunded in
 * full"), over HTTP on Postgres, with case changes written as the case workflow's activity writes
 * them: a fully refunded order closes, a line is never refunded beyond its value, a cancelled
 * order's returned units are not restocked twice, and the refund labels say what happened.
 */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const db = () => api.database.db;
const options = { reviewWindowSeconds: 60, ...caseChangeStarts };

interface Bought {
  seller: TestUser;
  buyer: TestUser;
  purchaseId: string;
  orderId: string;
  /** Order item ids, in listing order: two listings at 1000 each, one unit each; delivery 150. */
  lines: string[];
  listingIds: string[];
}

async function buyTwoCards(): Promise<Bought> {
  const { seller, listingIds } = await sellerWithListings(api, [
    { quantity: 3, price: 1000 },
    { quantity: 3, price: 1000 },
  ]);
  const buyer = await registerUser(api);
  const basketId = await fillBasket(api, buyer, [{ listingId: listingIds[0]! }, { listingId: listingIds[1]! }]);
  const checkout = await api.http
    .post(`/basket/${basketId}/checkout`)
    .set(buyer.bearer)
    .send({ successUrl: 'https://shop.example/ok' })
    .expect(201);
  const purchaseId = await pay(api, checkout.body.url);
  const [order] = (await api.http.get('/seller/orders').set(seller.bearer).expect(200)).body;
  const items: Array<{ id: string; listing_id: string }> = await db().query(`SELECT id, listing_id FROM order_items WHERE order_id = $1`, [
    order.id,
  ]);
  const lines = listingIds.map((l) => items.find((i) => i.listing_id === l)!.id);
  return { seller, buyer, purchaseId, orderId: order.id, lines, listingIds };
}

/** A case on the given lines (none: the whole order) with an outcome the seller proposes and the buyer accepts. */
async function agreed(orderId: string, lines: string[], type: OutcomeType, amount: number): Promise<{ caseId: string; outcomeId: string }> {
  const { caseId } = await insertCase(db(), orderId, 'BUYER', { items: lines.map((id) => ({ id, quantity: 1 })) });
  const outcome = { id: newId(), type, party: 'SELLER' as const };
  await recordCaseChange(
    db(),
    {
      caseId,
      changeId: newId(),
      actor: 'SELLER',
      kind: 'propose',
      status: 'OPEN',
      outcomes: [{ ...outcome, status: 'PENDING' }],
      proposal: { ...outcome, amount, comment: '', deliveryAddress: null },
    },
    options,
  );
  await recordCaseChange(
    db(),
    {
      caseId,
      changeId: newId(),
      actor: 'BUYER',
      kind: 'accept',
      status: type === 'RETURN' ? 'SETTLED' : 'CLOSED',
      outcomes: [{ ...outcome, status: 'ACCEPTED' }],
    },
    options,
  );
  return { caseId, outcomeId: outcome.id };
}

async function adjustments(orderId: string): Promise<Array<{ kind: string; amount: number }>> {
  return db().query(`SELECT kind, amount::int AS amount FROM adjustments WHERE order_id = $1 ORDER BY created_at, id`, [orderId]);
}

async function stock(listingId: string): Promise<number> {
  const [row] = await db().query(`SELECT quantity FROM listings WHERE id = $1`, [listingId]);
  return row.quantity;
}

describe('an order refunded in full', () => {
  it('closes as REFUNDED: nothing to ship, cancel or dispute, no next actions, and its purchase does not complete as sold', async () => {
    const b = await buyTwoCards();
    await agreed(b.orderId, [], 'REFUND', 2150);

    const order = (await api.http.get(`/seller/orders/${b.orderId}`).set(b.seller.bearer).expect(200)).body;
    expect(order).toMatchObject({ status: 'REFUNDED', actions: [] });
    expect(order.items.map((i: { status: string }) => i.status)).toEqual(['REFUNDED', 'REFUNDED']);
    const ship = await api.http
      .post(`/seller/orders/${b.orderId}`)
      .set(b.seller.bearer)
      .send({ action: 'ship', shipment: { carrier: 'RM', trackingNumber: 'RM1' }, items: b.lines.map((id) => ({ id, quantity: 1 })) })
      .expect(409);
    expect(ship.headers['content-type']).toMatch(/problem\+json/);
    const cancel = await api.http.post(`/seller/orders/${b.orderId}`).set(b.seller.bearer).send({ action: 'cancel' }).expect(409);
    expect(cancel.body.type).toBe('/problems/order-refunded');
    await api.http
      .put(`/user/purchases/${b.purchaseId}`)
      .set(b.buyer.bearer)
      .send({ action: 'dispute', orderId: b.orderId, reason: 'OTHER', comment: 'again', items: [{ id: b.lines[0], quantity: 1 }] })
      .expect(409);
    // Nothing of the purchase was sold: it does not complete, it ends CANCELLED with its buyer fee refunded.
    const [purchase] = await db().query(`SELECT status, completed_at, fee, fee_refunded FROM purchases WHERE id = $1`, [b.purchaseId]);
    expect(purchase).toMatchObject({ status: 'CANCELLED', completed_at: null });
    expect(purchase.fee).toBeGreaterThan(0);
    expect(purchase.fee_refunded).toBe(purchase.fee);
    expect(await adjustments(b.orderId)).toEqual([{ kind: 'FULL', amount: 2150 }]);
    // ORDER_UPDATED tells the seller's integrations the order closed.
    const events = await db().query(`SELECT count(*)::int AS n FROM outbox_events WHERE type = 'ORDER_UPDATED' AND data->>'orderId' = $1`, [
      b.orderId,
    ]);
    expect(events[0].n).toBeGreaterThanOrEqual(1);
  });
});

describe('refund caps per line', () => {
  it('refunds a line at most its value: a second case on a refunded line refunds nothing, the other line still can', async () => {
    const b = await buyTwoCards();
    await agreed(b.orderId, [b.lines[0]!], 'REFUND', 1000);
    await agreed(b.orderId, [b.lines[0]!], 'REFUND', 1000); // the same line again: nothing left of it
    await agreed(b.orderId, [b.lines[1]!], 'REFUND', 1500); // asks for more than the line: capped at it
    expect(await adjustments(b.orderId)).toEqual([
      { kind: 'PARTIAL', amount: 1000 },
      { kind: 'PARTIAL', amount: 1000 },
    ]);
    const items = await db().query(`SELECT refunded FROM order_items WHERE id = ANY($1)`, [b.lines]);
    expect(items.map((i: { refunded: number }) => i.refunded)).toEqual([1000, 1000]);
    // The delivery charge is still refundable, as a delivery refund: then the order is refunded in full.
    await agreed(b.orderId, [b.lines[0]!], 'REFUND', 150);
    expect((await adjustments(b.orderId)).at(-1)).toEqual({ kind: 'DELIVERY', amount: 150 });
    const [order] = await db().query(`SELECT status, refunded, delivery_refunded FROM orders WHERE id = $1`, [b.orderId]);
    expect(order).toEqual({ status: 'REFUNDED', refunded: 2150, delivery_refunded: 150 });
  });

  it('refuses in the database a line refunded beyond its value, whatever the code above it computes', async () => {
    const b = await buyTwoCards();
    await expect(db().query(`UPDATE order_items SET refunded = 1001 WHERE id = $1`, [b.lines[0]])).rejects.toThrow(
      /order_items_refunded_cap/,
    );
    await expect(db().query(`UPDATE orders SET refunded = 2151 WHERE id = $1`, [b.orderId])).rejects.toThrow(/orders_refunded_cap/);
  });
});

describe('a cancellation with a case open', () => {
  it('restocks the units once: a RETURN resolved after the cancellation neither restocks nor refunds again', async () => {
    const b = await buyTwoCards();
    expect(await stock(b.listingIds[0]!)).toBe(2);
    const { caseId } = await agreed(b.orderId, [b.lines[0]!], 'RETURN', 0);
    await api.http.post(`/seller/orders/${b.orderId}`).set(b.seller.bearer).send({ action: 'cancel' }).expect(204);
    expect(await stock(b.listingIds[0]!)).toBe(3);
    // The cancellation tells the open case's workflow, which closes it (test/workflows/case.test.ts).
    const told = await db().query(`SELECT workflow_id, options FROM workflow_starts WHERE request_key = $1`, [
      `order-cancelled:${b.orderId}`,
    ]);
    expect(told).toEqual([
      { workflow_id: `case:${caseId}`, options: expect.objectContaining({ signal: { name: 'orderCancelled', args: [] } }) },
    ]);

    const [outcome] = await db().query(`SELECT id, type, party FROM case_outcomes WHERE case_id = $1`, [caseId]);
    await recordCaseChange(
      db(),
      { caseId, changeId: newId(), actor: 'SELLER', kind: 'resolve', status: 'CLOSED', outcomes: [{ ...outcome, status: 'ACCEPTED' }] },
      options,
    );
    expect(await stock(b.listingIds[0]!)).toBe(3);
    expect(await adjustments(b.orderId)).toEqual([{ kind: 'FULL', amount: 2150 }]);
  });
});

describe('refund labels', () => {
  it('names a cancellation after a partial refund FULL, and a remainder that equals the delivery charge PARTIAL', async () => {
    const partlyRefunded = await buyTwoCards();
    await agreed(partlyRefunded.orderId, [partlyRefunded.lines[0]!], 'REFUND', 500);
    await api.http
      .post(`/seller/orders/${partlyRefunded.orderId}`)
      .set(partlyRefunded.seller.bearer)
      .send({ action: 'cancel' })
      .expect(204);
    expect(await adjustments(partlyRefunded.orderId)).toEqual([
      { kind: 'PARTIAL', amount: 500 },
      { kind: 'FULL', amount: 1650 },
    ]);

    const remainder = await buyTwoCards();
    await agreed(remainder.orderId, [], 'REFUND', 2000);
    await agreed(remainder.orderId, [], 'REFUND', 2150); // only 150 left, the size of the delivery charge
    expect(await adjustments(remainder.orderId)).toEqual([
      { kind: 'PARTIAL', amount: 2000 },
      { kind: 'PARTIAL', amount: 150 },
    ]);
  });
});

describe('transfers', () => {
  it('show a pending amount that follows the ledger through a refund during the hold, to the seller only', async () => {
    const b = await buyTwoCards();
    await shipAndReceive(api, b.seller, b.buyer, b.purchaseId, b.orderId);
    const pendingOnLedger = async () =>
      (
        await db().query(
          `SELECT COALESCE(sum(amount), 0)::int AS sum FROM ledger_entries WHERE order_id = $1 AND account = 'seller_pending'`,
          [b.orderId],
        )
      )[0].sum;
    const transfer = async () => (await api.http.get('/seller/transfers').set(b.seller.bearer).expect(200)).body.items[0];
    const atReceipt = await pendingOnLedger();
    expect(await transfer()).toMatchObject({ status: 'PENDING', amount: atReceipt });

    await agreed(b.orderId, [b.lines[0]!], 'REFUND', 1000);
    const afterRefund = await pendingOnLedger();
    expect(afterRefund).toBeLessThan(atReceipt);
    expect(await transfer()).toMatchObject({ status: 'PENDING', amount: afterRefund });
    const sellerView = (await api.http.get(`/seller/orders/${b.orderId}`).set(b.seller.bearer).expect(200)).body;
    expect(sellerView.transfers).toEqual([expect.objectContaining({ status: 'PENDING', amount: afterRefund })]);

    // The buyer sees the refund (their money), not the seller's share.
    const purchase = (await api.http.get(`/user/purchases/${b.purchaseId}`).set(b.buyer.bearer).expect(200)).body;
    const order = purchase.orders.find((o: { id: string }) => o.id === b.orderId);
    expect(order.transfers).toEqual([]);
    expect(order.adjustments).toEqual([expect.objectContaining({ type: 'REFUND', amount: 1000 })]);
  });
});
