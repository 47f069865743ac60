import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createLogger } from '../../src/logger';
import { casesWorkflowIds } from '../../src/modules/cases';
import type { StartDispatcher } from '../../src/services/workflow-starts/dispatcher';
import { createWorker } from '../../worker/create-worker';
import type { WorkerGroup } from '../../worker/worker-group';
import { createStartDispatcher } from '../../worker/start-dispatcher';
import { registerUser, startTestApi, type TestApi } from '../support/api';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { apiClient, dataOf, expectStatus } from '../support/client';
import { boughtOrder, disputeFirstItem, fillBasket, sellerWithListings } from '../support/shop';
import { devServerEnv, workflowBundle } from '../support/temporal';

// The stack of test/support/stack.ts, with the worker process's life in the test's hands: the
// worker and the workflow-start dispatcher it runs beside it (worker/main.ts) stop and start
// together.
let env: TestWorkflowEnvironment;
let database: TestDatabase;
let api: TestApi;
let worker: WorkerGroup;
let dispatcher: StartDispatcher;
let running: Promise<void>;

async function startWorker() {
  worker = await createWorker({
    config: api.config,
    db: database.db,
    connection: env.nativeConnection,
    workflowBundle: await workflowBundle(),
  });
  running = worker.run();
  dispatcher = createStartDispatcher(api.config, database.db, env.client, createLogger('silent', 'start-dispatcher'));
  dispatcher.start();
}
async function stopWorker() {
  await dispatcher.stop();
  worker.shutdown();
  await running;
}

beforeAll(async () => {
  env = await devServerEnv();
  database = await createTestDatabase();
  api = await startTestApi({ temporal: env.client, database });
  await startWorker();
}, 120_000);
afterAll(async () => {
  if (worker?.running) await stopWorker();
  await api?.close();
  await database?.close();
  await env?.teardown();
});

const q = (sql: string, args: unknown[]) => database.db.query(sql, args);

/** Waits until the dispatcher has started the case's workflow (its start row is stamped). */
async function caseWorkflowStarted(caseId: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const [row] = await q(`SELECT started_at FROM workflow_starts WHERE workflow_id = $1 AND request_key = ''`, [
      casesWorkflowIds.case(caseId),
    ]);
    if (row?.started_at) return;
    if (Date.now() > deadline) throw new Error(`case:${caseId} was not started`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('Idempotency-Key end to end (API → Temporal dev server → worker → Postgres)', () => {
  it('a retried checkout with the same key answers the first session again: one session, one set of holds', async () => {
    const { listingIds } = await sellerWithListings(api, [
      { quantity: 3, price: 900 },
      { quantity: 1, price: 400 },
    ]);
    const buyer = await registerUser(api, 'idembuyer');
    const basketId = await fillBasket(
      api,
      buyer,
      listingIds.map((listingId) => ({ listingId })),
    );
    const send = (key: string, successUrl = 'https://shop.example/done') =>
      apiClient(api, buyer.bearer).POST('/basket/{id}/checkout', {
        params: { path: { id: basketId }, header: { 'Idempotency-Key': key } },
        body: { successUrl },
      });

    const first = await expectStatus(send('checkout-1'), 201);
    const retry = await expectStatus(send('checkout-1'), 201);
    expect(retry.data).toEqual(first.data);
    expect(retry.response.headers.get('idempotent-replayed')).toBe('true');
    await expectStatus(send('checkout-1', 'https://shop.example/other'), 422);

    expect(await q(`SELECT count(*)::int AS n FROM checkout_sessions WHERE buyer_id = $1`, [buyer.id])).toEqual([{ n: 1 }]);
    const holds = await q(
      `SELECT listing_id, quantity FROM listing_holds WHERE listing_id = ANY($1) AND released_at IS NULL ORDER BY listing_id`,
      [listingIds],
    );
    expect(holds).toHaveLength(2);
    expect(await q(`SELECT sum(reserved)::int AS reserved FROM listings WHERE id = ANY($1)`, [listingIds])).toEqual([{ reserved: 2 }]);
  }, 60_000);

  it('without a key, a different action sent with a reused X-Request-Id is applied; the same action again is not', async () => {
    const { seller, buyer, purchaseId, order } = await boughtOrder(api, {
      buyerPrefix: 'idemreq',
      successUrl: 'https://shop.example/thanks',
    });
    const opened = await disputeFirstItem(api, buyer, { purchaseId, order }, 'Bent');
    await caseWorkflowStarted(opened.id);
    const propose = (amount: number) =>
      apiClient(api, seller.bearer).PUT('/seller/cases/{id}', {
        params: { path: { id: opened.id } },
        headers: { 'X-Request-Id': 'reused-request-id' },
        body: { action: 'propose', type: 'REFUND', amount, comment: `Refund ${amount}` },
      });

    await dataOf(propose(3));
    const second = await dataOf(propose(4));
    expect(second.outcomes.map((o) => o.amount).sort()).toEqual([3, 4]);
    // The same action with the same request id is the same Update: recognised, not applied twice.
    await dataOf(propose(4));
    expect(await q(`SELECT amount FROM case_outcomes WHERE case_id = $1 ORDER BY amount`, [opened.id])).toEqual([
      { amount: 3 },
      { amount: 4 },
    ]);
  }, 60_000);

  it('a propose retried with the same key after a 503 while the worker was stopped records one proposal', async () => {
    const { seller, buyer, purchaseId, order } = await boughtOrder(api, {
      buyerPrefix: 'idemcase',
      successUrl: 'https://shop.example/thanks',
    });
    const opened = await disputeFirstItem(api, buyer, { purchaseId, order }, 'Bent');
    const propose = () =>
      apiClient(api, seller.bearer).PUT('/seller/cases/{id}', {
        params: { path: { id: opened.id }, header: { 'Idempotency-Key': 'propose-refund-1' } },
        body: { action: 'propose', type: 'REFUND', amount: 1500, comment: 'Full refund' },
      });

    // The case workflow runs before the worker stops, so the 503 below is the Update's own
    // deadline on a running workflow.
    await caseWorkflowStarted(opened.id);
    await stopWorker();
    const timedOut = await propose();
    expect(timedOut.response.status).toBe(503);
    expect(timedOut.error!.type).toBe('/problems/temporarily-unavailable');
    await startWorker();

    const retried = await dataOf(propose());
    expect(retried.outcomes).toEqual([expect.objectContaining({ type: 'REFUND', party: 'SELLER', status: 'PENDING', amount: 1500 })]);
    // Sent again after it succeeded: the stored answer, still one proposal.
    const replayed = await expectStatus(propose(), 200);
    expect(replayed.response.headers.get('idempotent-replayed')).toBe('true');
    expect(await q(`SELECT count(*)::int AS n FROM case_outcomes WHERE case_id = $1`, [opened.id])).toEqual([{ n: 1 }]);
  }, 120_000);
});
