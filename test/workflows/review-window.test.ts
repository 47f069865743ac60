import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createReviewActivities } from '../../activities/reviews';
import { Reviews } from '../../src/services/reviews/reviews';
import { reviewsWorkflowIds } from '../../src/modules/reviews';
import { reviewWindowWorkflow } from '../../workflows';
import { registerUser, startTestApi, type TestApi } from '../support/api';
import { insertPurchase } from '../support/orders';
import { timeSkippingEnv, workflowBundle, testDataConverter } from '../support/temporal';

const DAY = 86_400;
const TASK_QUEUE = 'test-review-window';

let env: TestWorkflowEnvironment;
let api: TestApi;
beforeAll(async () => {
  [env, api] = await Promise.all([timeSkippingEnv(), startTestApi()]);
});
afterAll(async () => {
  await api?.close();
  await env?.teardown();
});

/** A completed purchase of one order, with whichever reviews the parties already wrote. */
async function completedPurchase(written: { buyer?: number; seller?: number } = {}) {
  const buyer = await registerUser(api, 'buyer');
  const seller = await registerUser(api, 'seller');
  const { purchaseId, orderIds } = await insertPurchase(api.database.db, { buyerId: buyer.id, sellerIds: [seller.id] });
  const reviews = new Reviews(api.database.db);
  if (written.buyer) await reviews.create(buyer.id, { orderId: orderIds[0]!, rating: written.buyer });
  if (written.seller) await reviews.create(seller.id, { orderId: orderIds[0]!, rating: written.seller });
  return { purchaseId, buyer, seller };
}

const reviewsOf = (purchaseId: string): Promise<Array<{ reviewer_id: string; rating: number; automatic: boolean }>> =>
  api.database.db.query(
    `SELECT r.reviewer_id, r.rating, r.automatic FROM reviews r JOIN orders o ON o.id = r.order_id WHERE o.purchase_id = $1 ORDER BY r.automatic, r.reviewer_id`,
    [purchaseId],
  );

/** Runs the window on a worker with the real activities; `during` runs while the window is open. */
async function runWindow(purchaseId: string, options: { completedDaysAgo?: number; during?: () => Promise<void> } = {}) {
  const worker = await Worker.create({
    dataConverter: testDataConverter,
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowBundle: await workflowBundle(),
    activities: createReviewActivities({ db: api.database.db }),
  });
  return worker.runUntil(async () => {
    const now = await env.currentTimeMs();
    const completedAt = new Date(now - (options.completedDaysAgo ?? 0) * DAY * 1000).toISOString();
    const handle = await env.client.workflow.start(reviewWindowWorkflow, {
      workflowId: reviewsWorkflowIds.reviewWindow(purchaseId),
      taskQueue: TASK_QUEUE,
      args: [{ purchaseId, completedAt, windowSeconds: 14 * DAY }],
    });
    await options.during?.();
    const created = await handle.result();
    const { startTime, closeTime } = await handle.describe();
    return { created, workflowDays: (closeTime!.getTime() - startTime.getTime()) / (DAY * 1000) };
  });
}

describe('reviewWindowWorkflow (time-skipping)', () => {
  it('waits the full 14 days of workflow time, then writes both missing reviews', async () => {
    const { purchaseId, buyer, seller } = await completedPurchase();
    const { created, workflowDays } = await runWindow(purchaseId, {
      during: async () => {
        await env.sleep(`${13 * DAY} seconds`);
        expect(await reviewsOf(purchaseId)).toEqual([]); // still open on day 13
      },
    });
    expect(created).toBe(2);
    expect(workflowDays).toBeGreaterThanOrEqual(14);
    expect(await reviewsOf(purchaseId)).toEqual(
      expect.arrayContaining([
        { reviewer_id: buyer.id, rating: 5, automatic: true },
        { reviewer_id: seller.id, rating: 5, automatic: true },
      ]),
    );
  });

  it('with the buyer already reviewed, writes only the seller→buyer review', async () => {
    const { purchaseId, buyer, seller } = await completedPurchase({ buyer: 2 });
    expect((await runWindow(purchaseId)).created).toBe(1);
    expect(await reviewsOf(purchaseId)).toEqual([
      { reviewer_id: buyer.id, rating: 2, automatic: false },
      { reviewer_id: seller.id, rating: 5, automatic: true },
    ]);
  });

  it('with both directions reviewed, creates nothing', async () => {
    const { purchaseId } = await completedPurchase({ buyer: 3, seller: 4 });
    expect((await runWindow(purchaseId)).created).toBe(0);
    expect((await reviewsOf(purchaseId)).map((r) => r.automatic)).toEqual([false, false]);
  });

  it('measures the window from the completion, so a window started late closes on time', async () => {
    const { purchaseId } = await completedPurchase();
    const { created, workflowDays } = await runWindow(purchaseId, { completedDaysAgo: 10 });
    expect(created).toBe(2);
    expect(workflowDays).toBeGreaterThanOrEqual(4);
    expect(workflowDays).toBeLessThan(5);
  });
});
