import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createLogger } from '../../src/logger';
import { createStartDispatcher } from '../../worker/start-dispatcher';
import { registerUser, type TestApi } from '../support/api';
import { fillBasket, pay, runOutHolds, sellerWithListings } from '../support/shop';
import { startTimeSkippingStack, type TimeSkippingStack } from '../support/stack';

/**
 * The checkout hold expiry sweep and the automatic receipt on the time-skipping server, driven
 * through the real API and run by the real activities on a real database: a 21-day receipt
 * period passes in milliseconds. A hold's end is a database time, so a test moves it instead.
 */
let env: TestWorkflowEnvironment;
let api: TestApi;
let stack: TimeSkippingStack | undefined;
beforeAll(async () => {
  stack = await startTimeSkippingStack();
  ({ env, api } = stack);
});
afterAll(() => stack?.stop());

/**
 * Starts what the API requested (one dispatcher pass, as the worker process would), then waits
 * for the workflow's result while the file's worker runs it.
 */
async function untilResult<T>(workflowId: string): Promise<T> {
  await createStartDispatcher(api.config, api.database.db, env.client, createLogger('silent', 'start-dispatcher')).dispatchBatch();
  return env.client.workflow.getHandle(workflowId).result() as Promise<T>;
}

async function checkedOut() {
  const { seller, listingIds } = await sellerWithListings(api, [{ quantity: 2, price: 1000 }]);
  const buyer = await registerUser(api);
  const basketId = await fillBasket(api, buyer, [{ listingId: listingIds[0]!, quantity: 2 }]);
  const res = await api.http
    .post(`/basket/${basketId}/checkout`)
    .set(buyer.bearer)
    .send({ successUrl: 'https://shop.example/ok' })
    .expect(201);
  const sessionId = new URL(res.body.url).pathname.split('/').pop()!;
  return { seller, buyer, listingId: listingIds[0]!, url: res.body.url as string, sessionId };
}

const sessionState = async (sessionId: string, listingId: string) => {
  const [{ status }] = await api.database.db.query(`SELECT status FROM checkout_sessions WHERE id = $1`, [sessionId]);
  const [{ quantity, reserved }] = await api.database.db.query(`SELECT quantity, reserved FROM listings WHERE id = $1`, [listingId]);
  return { status, quantity, reserved };
};

/** One sweep, as the `checkout-expiry` Schedule starts it, run by the file's worker. */
const sweep = () =>
  env.client.workflow.execute('checkoutExpiryWorkflow', {
    args: [{}],
    workflowId: `checkout-expiry-${randomUUID()}`,
    taskQueue: api.config.temporal.taskQueue,
  }) as Promise<number>;

describe('checkoutExpiryWorkflow', () => {
  it('expires the unpaid sessions whose hold has run out and releases their holds; the others stay', async () => {
    const due = await checkedOut();
    const young = await checkedOut();
    await runOutHolds(api, [due.sessionId]);
    expect(await sessionState(due.sessionId, due.listingId)).toEqual({ status: 'OPEN', quantity: 2, reserved: 2 });

    expect(await sweep()).toBeGreaterThanOrEqual(1);
    expect(await sessionState(due.sessionId, due.listingId)).toEqual({ status: 'EXPIRED', quantity: 2, reserved: 0 });
    expect(await sessionState(young.sessionId, young.listingId)).toEqual({ status: 'OPEN', quantity: 2, reserved: 2 });
    const late = await api.http.post(new URL(due.url).pathname).type('form').send({ outcome: 'success' }).expect(409);
    expect(late.body.type).toMatch(/checkout-closed/);
    // A second sweep finds nothing more of these to expire.
    await sweep();
    expect(await sessionState(young.sessionId, young.listingId)).toEqual({ status: 'OPEN', quantity: 2, reserved: 2 });
  });

  it('leaves a paid session and its committed stock alone', async () => {
    const { sessionId, listingId, url } = await checkedOut();
    await pay(api, url);
    await runOutHolds(api, [sessionId]);
    await sweep();
    expect(await sessionState(sessionId, listingId)).toEqual({ status: 'PAID', quantity: 0, reserved: 0 });
  });
});

describe('orderReceiptWorkflow', () => {
  it('receives a shipped order after the configured period, completing the purchase', async () => {
    const { seller, url } = await checkedOut();
    const purchaseId = await pay(api, url);
    const [order] = (await api.http.get('/seller/orders').set(seller.bearer).expect(200)).body;
    const { items } = (await api.http.get(`/seller/orders/${order.id}`).set(seller.bearer)).body;
    await api.http
      .post(`/seller/orders/${order.id}`)
      .set(seller.bearer)
      .send({
        action: 'ship',
        shipment: { carrier: 'RM', trackingNumber: 'RM1' },
        items: [{ id: items[0].id, quantity: items[0].quantity }],
      })
      .expect(204);
    const received = await untilResult(`order-receipt:${order.id}`);
    expect(received).toBe(true);
    const [{ status }] = await api.database.db.query(`SELECT status FROM purchases WHERE id = $1`, [purchaseId]);
    expect(status).toBe('COMPLETED');
  });
});
