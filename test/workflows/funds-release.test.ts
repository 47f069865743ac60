import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { createLogger } from '../../src/logger';
import { releaseOrderFunds } from '../../src/services/money/transfers';
import { createStartDispatcher } from '../../worker/start-dispatcher';
import { registerUser, type TestApi } from '../support/api';
import { fillBasket, pay, sellerWithListings } from '../support/shop';
import { recordReplayHistoriesOf } from '../support/replay-histories';
import { eventually, startTimeSkippingStack, type TimeSkippingStack } from '../support/stack';
import { testDataConverter } from '../support/temporal';

/**
 * The hold period between an order's receipt and its seller share becoming available, on the
 * time-skipping server with the real API, dispatcher and activities: three days pass in
 * milliseconds, and the ledger, balance and transfers are read back through the API.
 *
 * One worker serves the whole file: the dispatcher starts every workflow an order asked for
 * (tracking, receipt, review window), and those outlive each test; a worker per test would leave
 * them waiting on a stopped worker, and the server would stop skipping time for the next test
 * (see `runInBackground`).
 */
let env: TestWorkflowEnvironment;
let api: TestApi;
let stack: TimeSkippingStack | undefined;
beforeAll(async () => {
  stack = await startTimeSkippingStack();
  ({ env, api } = stack);
});
afterAll(() => stack?.stop());

/** Starts what the API requested (one dispatcher pass, as the worker process would). */
const dispatch = () =>
  createStartDispatcher(api.config, api.database.db, env.client, createLogger('silent', 'start-dispatcher')).dispatchBatch();

async function untilResult<T>(workflowId: string): Promise<T> {
  await dispatch();
  const result = (await env.client.workflow.getHandle(workflowId).result()) as T;
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
      items: [expect.objectContaining({ orderId: order.id, type: 'TRANSFER', status: 'COMPLETED', amount: share })],
      nextCursor: null,
    });
    const after = (await api.http.get(`/seller/orders/${order.id}`).set(seller.bearer).expect(200)).body;
    expect(after.transfers).toEqual(page.items);
    const unbalanced = await api.database.db.query(
      `SELECT transaction_id FROM ledger_entries GROUP BY transaction_id HAVING sum(amount) <> 0`,
    );
    expect(unbalanced).toEqual([]);
    const [{ events }] = await api.database.db.query(
      `SELECT array_agg(event ORDER BY created_at) AS events FROM ledger_transactions WHERE order_id = $1 OR purchase_id = $2`,
      [order.id, purchaseId],
    );
    expect(events).toEqual(['PAYMENT', 'FUNDS_RELEASED']);

    // The timer firing again (a retry, a replay) releases nothing twice.
    expect(await releaseOrderFunds(api.database.db, order.id)).toBe('nothing-pending');
    expect((await api.http.get('/seller/balance').set(seller.bearer)).body.available).toBe(share);
  });
});

describe('fundsReleaseWorkflow with a case open on the order', () => {
  it('holds the release while a case on the order is open and releases what is left when the case closes', async () => {
    const { seller, listingIds } = await sellerWithListings(api, [{ quantity: 2, price: 1000 }]);
    const buyer = await registerUser(api);
    const basketId = await fillBasket(api, buyer, [{ listingId: listingIds[0]!, quantity: 2 }]);
    const checkout = await api.http.post(`/basket/${basketId}/checkout`).set(buyer.bearer).send({ successUrl: 'https://shop.example/ok' });
    const purchaseId = await pay(api, checkout.body.url);
    const share = 2150 - 107;
    const [order] = (await api.http.get('/seller/orders').set(seller.bearer).expect(200)).body;
    const { items } = (await api.http.get(`/seller/orders/${order.id}`).set(seller.bearer)).body;
    await api.http
      .post(`/seller/orders/${order.id}`)
      .set(seller.bearer)
      .send({ action: 'ship', shipment: { carrier: 'RM', trackingNumber: 'RM2' }, items: [{ id: items[0].id, quantity: 2 }] })
      .expect(204);
    await api.http.put(`/user/purchases/${purchaseId}`).set(buyer.bearer).send({ action: 'receive', orderId: order.id }).expect(200);
    // The buyer disputes one unit, proposing a refund of 500.
    await api.http
      .put(`/user/purchases/${purchaseId}`)
      .set(buyer.bearer)
      .send({
        action: 'dispute',
        orderId: order.id,
        reason: 'DAMAGED',
        items: [{ id: items[0].id, quantity: 1 }],
        outcomes: [{ type: 'REFUND', amount: 500, comment: 'one is bent' }],
      })
      .expect(200);
    const [opened] = await api.database.db.query(
      `SELECT c.id AS "caseId", o.id AS "outcomeId" FROM cases c JOIN case_outcomes o ON o.case_id = c.id WHERE c.order_id = $1`,
      [order.id],
    );
    // The time-skipping server has no custom search attributes: the case workflow the outbox
    // asks for is started here unindexed (docs/cases.md), with the outbox's own arguments.
    const [caseStart] = await api.database.db.query(`SELECT id, args FROM workflow_starts WHERE workflow_id = $1`, [
      `case:${opened.caseId}`,
    ]);
    await api.database.db.query(`UPDATE workflow_starts SET started_at = now() WHERE id = $1`, [caseStart.id]);
    await env.client.workflow.start('caseWorkflow', {
      workflowId: `case:${opened.caseId}`,
      taskQueue: api.config.temporal.taskQueue,
      args: [{ ...caseStart.args[0], indexed: false }],
    });
    await dispatch();

    const workflowId = `funds-release:${order.id}`;
    const release = env.client.workflow.getHandle(workflowId);
    // The hold passes with the case open: the release checks, finds the case, and waits.
    await env.sleep(api.config.money.fundsHoldSeconds * 1000 + 1000);
    await eventually(async () => {
      const { events } = await release.fetchHistory();
      return events?.some((e) => e.activityTaskCompletedEventAttributes) ? true : null;
    });
    expect((await release.describe()).status.name).toBe('RUNNING');
    expect((await api.http.get('/seller/balance').set(seller.bearer)).body).toMatchObject({ pending: share, available: 0 });
    expect((await api.http.get(`/seller/orders/${order.id}`).set(seller.bearer)).body.transfers).toEqual([
      expect.objectContaining({ type: 'TRANSFER', status: 'PENDING', amount: share }),
    ]);

    // The seller accepts the refund over HTTP: the case closes, 500 is refunded (24 of it the
    // fee given back), and the case change signals the release through the start outbox.
    await api.http
      .put(`/seller/cases/${opened.caseId}`)
      .set(seller.bearer)
      .send({ action: 'accept', outcomeId: opened.outcomeId })
      .expect(200);
    expect((await api.http.get('/seller/balance').set(seller.bearer)).body).toMatchObject({ pending: share - 476, available: 0 });
    await dispatch();
    expect(await release.result()).toBe(true);

    expect((await api.http.get('/seller/balance').set(seller.bearer)).body).toMatchObject({ pending: 0, available: share - 476 });
    expect((await api.http.get(`/seller/orders/${order.id}`).set(seller.bearer)).body.transfers).toEqual([
      expect.objectContaining({ type: 'TRANSFER', status: 'COMPLETED', amount: share - 476 }),
    ]);
    const { events } = await release.fetchHistory();
    const names = (events ?? []).flatMap((e) =>
      e.workflowExecutionSignaledEventAttributes ? [e.workflowExecutionSignaledEventAttributes.signalName] : [],
    );
    expect(names).toEqual(['orderCaseClosed']);
    // Released once, after the refund: the ledger shows the refund before the release.
    const ledger = await api.database.db.query(
      `SELECT event FROM ledger_transactions WHERE order_id = $1 OR purchase_id = $2 ORDER BY created_at, id`,
      [order.id, purchaseId],
    );
    expect(ledger.map((l: { event: string }) => l.event)).toEqual(['PAYMENT', 'REFUND', 'FUNDS_RELEASED']);
    await recordReplayHistoriesOf(env.client, [workflowId]);
  });
});

describe('fundsReleaseWorkflow started late', () => {
  it('ends the hold on the date the seller is shown, not a whole hold after its own start', async () => {
    // A start that waited out a Temporal outage: one hour of the three-day hold is left.
    const hold = api.config.money.fundsHoldSeconds;
    const releaseAt = new Date((await env.currentTimeMs()) + 3_600_000);
    const orderId = '01a2ffff-0000-7000-8000-000000000001'; // no such order: the release finds nothing pending
    const handle = await env.client.workflow.start('fundsReleaseWorkflow', {
      workflowId: `funds-release:${orderId}`,
      taskQueue: api.config.temporal.taskQueue,
      args: [{ orderId, afterSeconds: hold, releaseAt: releaseAt.toISOString() }],
    });
    expect(await handle.result()).toBe(false);
    const { events } = await handle.fetchHistory();
    const timers = (events ?? []).flatMap((e) => (e.timerStartedEventAttributes ? [e.timerStartedEventAttributes] : []));
    expect(timers).toHaveLength(1);
    const firesAfterMs =
      Number(timers[0]!.startToFireTimeout!.seconds) * 1000 + Math.round((timers[0]!.startToFireTimeout!.nanos ?? 0) / 1e6);
    // The timer says what it waits for (Temporal user metadata, encrypted like every payload; the Web UI decodes it).
    const started = (events ?? []).find((e) => e.timerStartedEventAttributes)!;
    let summary = started.userMetadata!.summary! as Payload;
    for (const codec of testDataConverter.payloadCodecs ?? []) summary = (await codec.decode([summary]))[0]!;
    expect(defaultPayloadConverter.fromPayload(summary)).toBe(`hold until ${releaseAt.toISOString()}`);
    // Less than the hour left (the start itself took a moment), nowhere near the three days.
    expect(firesAfterMs).toBeLessThanOrEqual(3_600_000);
    expect(firesAfterMs).toBeGreaterThan(3_500_000);

    // Older starts carry `afterSeconds` alone: the whole hold from the start, as before.
    const older = '01a2ffff-0000-7000-8000-000000000002';
    const plain = await env.client.workflow.start('fundsReleaseWorkflow', {
      workflowId: `funds-release:${older}`,
      taskQueue: api.config.temporal.taskQueue,
      args: [{ orderId: older, afterSeconds: hold }],
    });
    expect(await plain.result()).toBe(false);
    const plainTimer = (await plain.fetchHistory()).events!.find((e) => e.timerStartedEventAttributes)!.timerStartedEventAttributes!;
    expect(Number(plainTimer.startToFireTimeout!.seconds)).toBe(hold);
  });
});
