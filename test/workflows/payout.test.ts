import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { releaseOrderFunds } from '../../src/services/money/transfers';
import { createWorker } from '../../worker/create-worker';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { commitPaidCheckout } from '../support/purchases';
import { recordReplayHistoriesOf } from '../support/replay-histories';
import { timeSkippingEnv, workflowBundle } from '../support/temporal';

/**
 * Payouts on the time-skipping server with the real activities: the run workflow (what the
 * Schedule starts) starts one payout child per seller with money available, and each
 * payout goes created → in transit → paid or failed, a day in transit passing in milliseconds.
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

async function withWorker<T>(fn: () => Promise<T>): Promise<T> {
  const worker = await createWorker({
    config: api.config,
    db: db(),
    connection: env.nativeConnection,
    workflowBundle: await workflowBundle(),
  });
  // The worker takes its cache size from the configuration, not from the heap limit.
  expect(worker.main.options.maxCachedWorkflows).toBe(api.config.temporal.maxCachedWorkflows);
  expect(worker.main.options.tuner.activityTaskSlotSupplier).toEqual({
    type: 'fixed-size',
    numSlots: api.config.temporal.maxConcurrentActivities,
  });
  return worker.runUntil(fn());
}

/** A seller with `total` less the 5% fee available: paid, received and released through the services. */
async function sellerWithAvailable(total: number): Promise<{ seller: TestUser; available: number }> {
  const seller = await registerSeller(api);
  const buyer = await registerUser(api);
  const { orderId } = await commitPaidCheckout(db(), buyer.id, seller.id, total);
  await db().query(`UPDATE orders SET status = 'SHIPPED' WHERE id = $1`, [orderId]);
  await api.services.orderUpdates.apply(orderId, { role: 'buyer', userId: buyer.id }, { action: 'receive' });
  await releaseOrderFunds(db(), orderId);
  return { seller, available: total - Math.floor((total * 500) / 10_000) };
}

/** Runs the payout run workflow (as the Schedule would); answers what it started and each child payout's result. */
async function runPayouts(input: { runDate?: string } = {}): Promise<{ started: number; results: Map<string, string> }> {
  return withWorker(async () => {
    const runId = `payout-run-test-${Date.now()}`;
    const started = await env.client.workflow.execute('payoutRunWorkflow', {
      workflowId: runId,
      taskQueue: api.config.temporal.taskQueue,
      args: [input],
    });
    // The payouts are the run's children: read their ids from its history.
    const { events } = await env.client.workflow.getHandle(runId).fetchHistory();
    const children = (events ?? []).flatMap((e) => e.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId ?? []);
    expect(children).toHaveLength(started);
    const results = new Map<string, string>();
    for (const id of children) results.set(id, await env.client.workflow.getHandle(id).result());
    await recordReplayHistoriesOf(env.client, [runId, ...children]);
    return { started, results };
  });
}

const ledgerSum = async (account: string, sellerId?: string): Promise<number> =>
  (
    await db().query(
      `SELECT COALESCE(sum(amount), 0)::int AS s FROM ledger_entries WHERE account = $1 AND ($2::uuid IS NULL OR seller_id = $2)`,
      [account, sellerId ?? null],
    )
  )[0].s;

describe('payouts', () => {
  it("pays out each seller's available balance once per run date; a refused payout returns the money to available", async () => {
    const paid = await sellerWithAvailable(3000);
    const failing = await sellerWithAvailable(2000);
    await db().query(`INSERT INTO simulator_bank_accounts (seller_id, fails) VALUES ($1, true)`, [failing.seller.id]);

    const { started, results } = await runPayouts();
    expect(started).toBe(2);
    // The run date is the workflow's today (the test server's clock, which skips ahead).
    const today = [...results.keys()][0]!.split(':')[2]!;
    expect(results).toEqual(
      new Map([
        [`payout:${paid.seller.id}:${today}`, 'PAID'],
        [`payout:${failing.seller.id}:${today}`, 'FAILED'],
      ]),
    );

    const page = (await api.http.get('/seller/payouts').set(paid.seller.bearer).expect(200)).body;
    expect(page).toEqual({
      payouts: [
        {
          id: expect.any(String),
          amount: paid.available,
          currency: 'GBP',
          arrivalDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
          status: 'PAID',
        },
      ],
      cursor: null,
    });
    const arrival = new Date(`${page.payouts[0].arrivalDate}T00:00:00Z`).getTime() - new Date(`${today}T00:00:00Z`).getTime();
    expect(arrival).toBe(api.config.money.payoutArrivalDays * 86_400_000);
    expect((await api.http.get('/seller/balance').set(paid.seller.bearer)).body).toMatchObject({ available: 0, pending: 0 });
    expect(await ledgerSum('payouts')).toBe(paid.available);
    expect(await ledgerSum('payouts_in_transit')).toBe(0);

    const failed = (await api.http.get('/seller/payouts').set(failing.seller.bearer).expect(200)).body.payouts;
    expect(failed).toEqual([expect.objectContaining({ amount: failing.available, status: 'FAILED' })]);
    expect((await api.http.get('/seller/balance').set(failing.seller.bearer)).body).toMatchObject({ available: failing.available });

    const events = await db().query(`SELECT type, seller_id FROM outbox_events WHERE type LIKE 'PAYOUT_%' ORDER BY type`);
    expect(events).toEqual([
      { type: 'PAYOUT_FAILED', seller_id: failing.seller.id },
      { type: 'PAYOUT_PAID', seller_id: paid.seller.id },
    ]);
    const unbalanced = await db().query(`SELECT transaction_id FROM ledger_entries GROUP BY transaction_id HAVING sum(amount) <> 0`);
    expect(unbalanced).toEqual([]);

    // A second run of the same date starts nothing: the refused seller has money available again,
    // but its payout id for the date is taken (the next date's run pays it).
    expect(await runPayouts({ runDate: today })).toEqual({ started: 0, results: new Map() });
    expect((await api.http.get('/seller/payouts').set(failing.seller.bearer).expect(200)).body.payouts).toHaveLength(1);
    // And a payout created again for a seller and date is the same payout.
    const again = await api.services.sellerMoney.createPayout(paid.seller.id, today);
    expect(again).toBe(page.payouts[0].id);
    expect(await ledgerSum('payouts')).toBe(paid.available);

    const foreign = await api.http.get(`/seller/payouts?cursor=${page.payouts[0].id}`).set(failing.seller.bearer).expect(400);
    expect(foreign.body.type).toBe('/problems/invalid-cursor');
  });
});
