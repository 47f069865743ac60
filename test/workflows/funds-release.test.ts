import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createLogger } from '../../src/logger';
import { releaseOrderFunds } from '../../src/services/money/transfers';
import { createWorker } from '../../worker/create-worker';
import { createStartDispatcher } from '../../worker/start-dispatcher';
import { registerUser, startTestApi, type TestApi } from '../support/api';
import { fillBasket, pay, sellerWithListings } from '../support/shop';
import { recordReplayHistoriesOf } from '../support/replay-histories';
import { timeSkippingEnv, workflowBundle } from '../support/temporal';

/**
 * The hold period between an order's receipt and its seller share becoming available, on the
 * time-skipping server with the real API, dispatcher and activities: three days pass in
 * milliseconds, and the ledger, balance and transfers are read back through the API.
 */
let env: TestWorkflowEnvironment;
let api: TestApi;
beforeAll(async () => {
  env = await timeSkippingEnv();
  api = await startTestApi({ temporal: env.client });
});
afterAll(async () => {
  await api?.close();
  await env?.teardown();
});

async function untilResult<T>(workflowId: string): Promise<T> {
  await createStartDispatcher(api.config, api.database.db, env.client, createLogger('silent', 'start-dispatcher')).dispatchBatch();
  const worker = await createWorker({
    config: api.config,
    db: api.database.db,
    connection: env.nativeConnection,
    workflowBundle: await workflowBundle(),
  });
  const result = (await worker.runUntil(env.client.workflow.getHandle(workflowId).result())) as T;
  await recordReplayHistoriesOf(env.client, [workflowId]);
  return result;
}

describe('fundsReleaseWorkflow', () => {
  it('moves the seller share from pending to available once the hold period after receipt has passed', async () => {
    const { seller, listingIds } = await sellerWithListings(api, [{ quantity: 2, price: 1000 }]);
    const buyer = await registerUser(api);
    const basketId = await fillBasket(api, buyer, [{ listingId: listingIds[0]!, quantity: 2 }]);
    const checkout = await api.http
      .post(`/basket/${basketId}/checkout`)
      .set(buyer.bearer)
      .send({ successUrl: 'https://shop.example/ok' })
      .expect(201);
    const purchaseId = await pay(api, checkout.body.url);

    // Order total 2000 + 150 delivery = 2150; the 5% seller fee rounds down to 107.
    const share = 2150 - 107;
    expect((await api.http.get('/seller/balance').set(seller.bearer).expect(200)).body).toMatchObject({
      pending: share,
      available: 0,
      currency: 'GBP',
    });

    const [order] = (await api.http.get('/seller/orders').set(seller.bearer).expect(200)).body;
    const { items } = (await api.http.get(`/seller/orders/${order.id}`).set(seller.bearer)).body;
    await api.http
      .post(`/seller/orders/${order.id}`)
      .set(seller.bearer)
      .send({ action: 'ship', shipment: { carrier: 'RM', trackingNumber: 'RM1' }, items: [{ id: items[0].id, quantity: 2 }] })
      .expect(204);
    await api.http.put(`/user/purchases/${purchaseId}`).set(buyer.bearer).send({ action: 'receive', orderId: order.id }).expect(200);

    // Received, not yet released: a PENDING transfer says when the money arrives.
    const before = (await api.http.get(`/seller/orders/${order.id}`).set(seller.bearer).expect(200)).body;
    expect(before.transfers).toEqual([expect.objectContaining({ type: 'TRANSFER', status: 'PENDING', amount: share, currency: 'GBP' })]);
    const receivedAt = (await api.database.db.query(`SELECT received_at FROM orders WHERE id = $1`, [order.id]))[0].received_at as Date;
    expect(new Date(before.transfers[0].availableOn).getTime() - receivedAt.getTime()).toBe(api.config.money.fundsHoldSeconds * 1000);
    expect((await api.http.get('/seller/balance').set(seller.bearer)).body).toMatchObject({ pending: share, available: 0 });

    expect(await untilResult<boolean>(`funds-release:${order.id}`)).toBe(true);

    expect((await api.http.get('/seller/balance').set(seller.bearer)).body).toMatchObject({
      pending: 0,
      available: share,
      currency: 'GBP',
    });
    const page = (await api.http.get('/seller/transfers').set(seller.bearer).expect(200)).body;
    expect(page).toEqual({
      transfers: [expect.objectContaining({ orderId: order.id, type: 'TRANSFER', status: 'COMPLETED', amount: share })],
      cursor: null,
    });
    const after = (await api.http.get(`/seller/orders/${order.id}`).set(seller.bearer).expect(200)).body;
    expect(after.transfers).toEqual(page.transfers);
    const unbalanced = await api.database.db.query(
      `SELECT transaction_id FROM ledger_entries GROUP BY transaction_id HAVING sum(amount) <> 0`,
    );
    expect(unbalanced).toEqual([]);
    const [{ events }] = await api.database.db.query(`SELECT array_agg(event ORDER BY created_at) AS events FROM ledger_transactions`);
    expect(events).toEqual(['PAYMENT', 'FUNDS_RELEASED']);

    // The timer firing again (a retry, a replay) releases nothing twice.
    expect(await releaseOrderFunds(api.database.db, order.id)).toBe('nothing-pending');
    expect((await api.http.get('/seller/balance').set(seller.bearer)).body.available).toBe(share);
  });
});
