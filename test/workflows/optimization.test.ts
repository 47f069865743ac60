import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createOptimizerActivities } from '../../activities/optimizer';
import { newId } from '../../src/ids';
import { OptimizationSolver } from '../../src/services/wants/optimization-solver';
import type { OptimizationRequest, OptimizationResult } from '../../src/services/wants/optimization-request';
import { wantsWorkflowIds } from '../../src/modules/wants';
import { optimizationWorkflow } from '../../workflows';
import { registerSeller, registerUser, startTestApi, type TestApi } from '../support/api';
import { insertListing, seedCatalog } from '../support/fixtures';
import { testDataConverter, timeSkippingEnv, workflowBundle } from '../support/temporal';
import { insertDeliveryOption, insertWantsList } from '../support/wants';

const MAIN_QUEUE = 'test-optimization';
const OPTIMIZER_QUEUE = 'test-optimizer';

let env: TestWorkflowEnvironment;
let api: TestApi;
beforeAll(async () => {
  [env, api] = await Promise.all([timeSkippingEnv(), startTestApi()]);
});
afterAll(async () => {
  await api?.close();
  await env?.teardown();
});

const REQUEST: OptimizationRequest = {
  country: 'GB',
  addressId: null,
  maxSellers: null,
  minSellerRating: null,
  excludeSellerIds: [],
  lineIds: null,
  timeLimitMs: 2000,
};

/** An optimization row as the API writes it, for a list of two cards three sellers hold. */
async function pendingOptimization() {
  const db = api.database.db;
  const { items } = await seedCatalog(db, { names: ['Abra', 'Kadabra'] });
  const [both, onlyA, onlyB] = await Promise.all([registerSeller(api), registerSeller(api), registerSeller(api)]);
  for (const seller of [both!, onlyA!, onlyB!]) await insertDeliveryOption(db, seller.id, 300, ['GB']);
  const bothA = await insertListing(db, { sellerId: both!.id, itemUrn: items[0]!.urn, price: 100 });
  const bothB = await insertListing(db, { sellerId: both!.id, itemUrn: items[1]!.urn, price: 100 });
  await insertListing(db, { sellerId: onlyA!.id, itemUrn: items[0]!.urn, price: 80 });
  await insertListing(db, { sellerId: onlyB!.id, itemUrn: items[1]!.urn, price: 80 });
  const buyer = await registerUser(api, 'wants');
  const { listId } = await insertWantsList(db, buyer.id, [{ urn: items[0]!.urn }, { urn: items[1]!.urn }]);
  const optimizationId = newId();
  await db.query(`INSERT INTO wants_optimizations (id, list_id, user_id, status, request) VALUES ($1, $2, $3, 'RUNNING', $4)`, [
    optimizationId,
    listId,
    buyer.id,
    JSON.stringify(REQUEST),
  ]);
  return { optimizationId, sellerWithBoth: both!.id, picks: [bothA.id, bothB.id] };
}

/** Runs the workflow on a main-queue worker and an optimizer-queue worker, as the worker process does. */
async function run(optimizationId: string, solving: { solveOptimization: (id: string) => Promise<'DONE' | 'FAILED'> }) {
  const activities = createOptimizerActivities({ optimizationSolver: new OptimizationSolver(api.database.db) });
  const main = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: MAIN_QUEUE,
    workflowBundle: await workflowBundle(),
    activities: activities.recording,
    dataConverter: testDataConverter,
  });
  const optimizer = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: OPTIMIZER_QUEUE,
    activities: solving,
    dataConverter: testDataConverter,
  });
  return main.runUntil(() =>
    optimizer.runUntil(() =>
      env.client.workflow.execute(optimizationWorkflow, {
        workflowId: wantsWorkflowIds.optimization(optimizationId),
        taskQueue: MAIN_QUEUE,
        args: [{ optimizationId, timeLimitMs: REQUEST.timeLimitMs, taskQueue: OPTIMIZER_QUEUE }],
      }),
    ),
  );
}

const stored = async (id: string) => {
  const [row] = await api.database.db.query(`SELECT status, result, failure FROM wants_optimizations WHERE id = $1`, [id]);
  return row as { status: string; result: OptimizationResult | null; failure: string | null };
};

describe('optimization:{id} (solved on the optimizer task queue)', () => {
  it('solves on the optimizer queue and records the proven cheapest basket: one seller beats the two cheapest copies', async () => {
    const { optimizationId, sellerWithBoth, picks } = await pendingOptimization();
    const solving = createOptimizerActivities({ optimizationSolver: new OptimizationSolver(api.database.db) }).solving;
    await expect(run(optimizationId, solving)).resolves.toBe('DONE');
    const row = await stored(optimizationId);
    expect(row.status).toBe('DONE');
    // 2 × 100 + one delivery of 300, against 2 × 80 + two deliveries of 300.
    expect(row.result).toMatchObject({
      solverStatus: 'OPTIMAL',
      total: 500,
      itemsTotal: 200,
      deliveryTotal: 300,
      naiveTotal: 760,
      gap: 0,
      unfilled: [],
    });
    expect(row.result!.lowerBound).toBe(500);
    expect(row.result!.sellers.map((s) => s.sellerId)).toEqual([sellerWithBoth]);
    expect(row.result!.picks.map((p) => p.listingId).sort()).toEqual([...picks].sort());
  });

  it('records a solve that keeps failing as FAILED, never leaving it RUNNING', async () => {
    const { optimizationId } = await pendingOptimization();
    let attempts = 0;
    const failing = {
      solveOptimization: async () => {
        attempts += 1;
        throw new Error('solver ran out of memory');
      },
    };
    await expect(run(optimizationId, failing)).resolves.toBe('FAILED');
    expect(attempts).toBe(2);
    expect(await stored(optimizationId)).toMatchObject({ status: 'FAILED', result: null, failure: 'solver ran out of memory' });
  });
});
