import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { WorkflowFailedError } from '@temporalio/client';
import { sellerBalances } from '../../src/services/money/ledger';
import { reconcileFigures } from '../../src/services/money/reconciliation';
import { releaseOrderFunds } from '../../src/services/money/transfers';
import { createWorker } from '../../worker/create-worker';
import { createWorkerActivities } from '../../worker/composition';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { commitPaidCheckout } from '../support/purchases';
import { recordReplayHistoriesOf } from '../support/replay-histories';
import { testDataConverter, timeSkippingEnv, workflowBundle } from '../support/temporal';

/**
 * The money reconciler on the time-skipping server: a payout whose settlement and a funds release
 * each fail for good (their activities keep failing until the bounded retries run out, as in a
 * long outage), leaving a payout IN_TRANSIT and a release PENDING past its date. The
 * `money-reconcile` workflow, run later with the real activities, finds both from the rows and
 * brings each to a final state through the same services, with every pence accounted for.
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

const db = () => api.database.db;
const taskQueue = () => api.config.temporal.taskQueue;

/** A seller with a received order: `released` moves its share to available now, else it waits for its release. */
async function sellerWithOrder(total: number, released: boolean): Promise<{ seller: TestUser; orderId: string }> {
  const seller = await registerSeller(api);
  const buyer = await registerUser(api);
  const { orderId } = await commitPaidCheckout(db(), buyer.id, seller.id, total);
  await db().query(`UPDATE orders SET status = 'SHIPPED' WHERE id = $1`, [orderId]);
  await api.services.orderUpdates.apply(orderId, { role: 'buyer', userId: buyer.id }, { action: 'receive' });
  if (released) await releaseOrderFunds(db(), orderId);
  return { seller, orderId };
}

/** The real activities, except the ones given, which fail on every attempt (the bank or the database unreachable). */
async function workerWithFailing(names: Array<'settlePayout' | 'releaseOrderFunds'>): Promise<Worker> {
  const failing = () => Promise.reject(new Error('connection refused'));
  return Worker.create({
    connection: env.nativeConnection,
    namespace: 'default',
    taskQueue: taskQueue(),
    workflowBundle: await workflowBundle(),
    dataConverter: testDataConverter,
    activities: { ...createWorkerActivities(api.config, db()), ...Object.fromEntries(names.map((n) => [n, failing])) },
  });
}

const ledgerSum = async (account: string, sellerId: string): Promise<number> =>
  (
    await db().query(`SELECT COALESCE(sum(amount), 0)::int AS s FROM ledger_entries WHERE account = $1 AND seller_id = $2`, [
      account,
      sellerId,
    ])
  )[0].s;

it('finishes a payout and a release whose workflows failed for good, once, with the money accounted for', async () => {
  const paying = await sellerWithOrder(3000, true);
  const releasing = await sellerWithOrder(2000, false);
  const share = (total: number) => total - Math.floor((total * 500) / 10_000);
  const runDate = '2031-05-01';

  // Both workflows give up: the payout after handing the money to the bank, the release at its date.
  const broken = await workerWithFailing(['settlePayout', 'releaseOrderFunds']);
  await broken.runUntil(async () => {
    await expect(
      env.client.workflow.execute('payoutWorkflow', {
        workflowId: `payout:${paying.seller.id}:${runDate}`,
        taskQueue: taskQueue(),
        args: [{ sellerId: paying.seller.id, runDate, transitSeconds: 60 }],
      }),
    ).rejects.toBeInstanceOf(WorkflowFailedError);
    await expect(
      env.client.workflow.execute('fundsReleaseWorkflow', {
        workflowId: `funds-release:${releasing.orderId}`,
        taskQueue: taskQueue(),
        args: [{ orderId: releasing.orderId, afterSeconds: 0 }],
      }),
    ).rejects.toBeInstanceOf(WorkflowFailedError);
  });
  const [stuckPayout] = await db().query(`SELECT id, status FROM payouts WHERE seller_id = $1`, [paying.seller.id]);
  expect(stuckPayout.status).toBe('IN_TRANSIT');
  expect(await ledgerSum('payouts_in_transit', paying.seller.id)).toBe(share(3000));
  const [stuckTransfer] = await db().query(`SELECT status FROM transfers WHERE order_id = $1`, [releasing.orderId]);
  expect(stuckTransfer.status).toBe('PENDING');

  // Not stuck yet as of the real clock: due, but not past the grace period.
  expect(await api.services.sellerMoney.stuckMoney(new Date())).toEqual([]);

  const worker = await createWorker({
    config: api.config,
    db: db(),
    connection: env.nativeConnection,
    workflowBundle: await workflowBundle(),
  });
  const reconciled = await worker.runUntil(async () => {
    // A day later on the workflows' clock: both are long past due.
    await env.sleep('1 day');
    const done = await env.client.workflow.execute('moneyReconcileWorkflow', {
      workflowId: 'money-reconcile-test',
      taskQueue: taskQueue(),
      args: [{}],
    });
    await recordReplayHistoriesOf(env.client, ['money-reconcile-test']);
    return done;
  });
  expect(
    reconciled.map((r: { kind: string; subjectId: string; before: string; after: string | null; error: string | null }) => [
      r.kind,
      r.subjectId,
      r.before,
      r.after,
      r.error,
    ]),
  ).toEqual([
    ['payout', stuckPayout.id, 'IN_TRANSIT', 'PAID', null],
    ['release', releasing.orderId, 'PENDING', 'released', null],
  ]);

  // Final states, and the money where it belongs.
  expect((await db().query(`SELECT status FROM payouts WHERE id = $1`, [stuckPayout.id]))[0].status).toBe('PAID');
  expect(await ledgerSum('payouts_in_transit', paying.seller.id)).toBe(0);
  expect(
    (
      await db()
        .query(`SELECT COALESCE(sum(amount), 0)::int AS s FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
                               WHERE e.account = 'payouts' AND t.event = 'PAYOUT_PAID'`)
    )[0].s,
  ).toBe(share(3000));
  expect((await db().query(`SELECT status, amount::int AS amount FROM transfers WHERE order_id = $1`, [releasing.orderId]))[0]).toEqual({
    status: 'COMPLETED',
    amount: share(2000),
  });
  expect(await sellerBalances(db().manager, releasing.seller.id)).toEqual({ pending: 0, available: share(2000) });
  expect(await db().query(`SELECT transaction_id FROM ledger_entries GROUP BY transaction_id HAVING sum(amount) <> 0`)).toEqual([]);
  expect(await reconcileFigures(db(), { sellerFeeBps: 500 })).toEqual([]);

  // Recorded for operators; a second pass finds nothing and moves nothing.
  expect((await api.services.sellerMoney.reconciliations(10)).map((r) => r.subjectId).sort()).toEqual(
    [stuckPayout.id, releasing.orderId].sort(),
  );
  expect(await api.services.sellerMoney.reconcile(new Date(Date.now() + 7 * 86_400_000))).toEqual([]);
});
