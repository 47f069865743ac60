import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createLogger } from '../../src/logger';
import { createWorker } from '../../worker/create-worker';
import { createStartDispatcher } from '../../worker/start-dispatcher';
import { registerUser, startTestApi, type TestApi } from '../support/api';
import { fillBasket, pay, sellerWithListings } from '../support/shop';
import { recordReplayHistoriesOf } from '../support/replay-histories';
import { eventually } from '../support/stack';
import { timeSkippingEnv, workflowBundle } from '../support/temporal';

/**
 * A funds release held back by an open case, on the time-skipping server with the real API,
 * dispatcher, activities and case workflow (its own file: a fresh server whose clock no
 * workflow of another test can hold back).
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

const dispatch = () =>
  createStartDispatcher(api.config, api.database.db, env.client, createLogger('silent', 'start-dispatcher')).dispatchBatch();

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
    const worker = await createWorker({
      config: api.config,
      db: api.database.db,
      connection: env.nativeConnection,
      workflowBundle: await workflowBundle(),
    });
    await worker.runUntil(async () => {
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
    });

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
