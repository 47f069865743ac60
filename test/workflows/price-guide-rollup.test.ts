import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { ScheduleModuleContext } from '../../src/modules/feature-module';
import { priceGuideModule } from '../../src/modules/price-guide';
import { recordSales } from '../../src/services/catalog/sales-ledger';
import { ROLLUP_MARGIN_MS } from '../../src/services/price-guide/rollup';
import { seedCatalog } from '../support/fixtures';
import { recordReplayHistoriesOf } from '../support/replay-histories';
import { startTimeSkippingStack, type TimeSkippingStack } from '../support/stack';
import { devServerEnv } from '../support/temporal';
import { completedSale } from '../support/sales';

/**
 * The price guide's rollup, as the `price-guide-rollup` Schedule starts it, on the time-skipping
 * server with the real activity on a real database; and the Schedule itself, which the module
 * declares and the worker's keepSchedules creates, on a dev server (the time-skipping server has
 * no Schedules, see payout-schedule.test.ts).
 */
const DAY = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('priceGuideRollupWorkflow', () => {
  let stack: TimeSkippingStack | undefined;
  beforeAll(async () => {
    stack = await startTimeSkippingStack();
  });
  afterAll(() => stack?.stop());

  it('rolls the closed days up per item, condition and UTC day, and moves the mark to the last one', async () => {
    const { env, api } = stack!;
    const db = api.database.db;
    const { items } = await seedCatalog(db);
    const today = Math.floor(Date.now() / DAY) * DAY;
    await db.transaction((tx) =>
      recordSales(tx, [
        completedSale(items[0]!.urn, 'MINT', 1000, 1, today - 2 * DAY + 1000),
        completedSale(items[0]!.urn, 'MINT', 1200, 2, today - 2 * DAY + 5000),
        completedSale(items[0]!.urn, 'POOR', 100, 1, today - 2 * DAY + 5000),
        completedSale(items[1]!.urn, 'GOOD', 700, 1, today - 3 * DAY),
        completedSale(items[1]!.urn, 'GOOD', 900, 1, today - 40 * DAY), // older than any window: not rolled up
        completedSale(items[1]!.urn, 'GOOD', 5000, 1, Date.now() - 60_000), // today: not closed yet
      ]),
    );

    const workflowId = `price-guide-rollup-${new Date().toISOString()}`;
    const result = await env.client.workflow.execute('priceGuideRollupWorkflow', {
      args: [{}],
      workflowId,
      taskQueue: api.config.temporal.taskQueue,
    });
    const last = Math.floor((Date.now() - ROLLUP_MARGIN_MS) / DAY) * DAY - DAY;
    expect(result).toEqual({ days: Array.from({ length: 31 }, (_, n) => isoDay(last - (30 - n) * DAY)), rolledThrough: isoDay(last) });

    const rows = await db.query(
      `SELECT item_urn, condition, to_char(day, 'YYYY-MM-DD') AS day, units, amount::int AS amount
         FROM item_sale_days WHERE item_urn = ANY($1) ORDER BY item_urn, day, condition`,
      [items.map((i) => i.urn)],
    );
    expect(rows).toEqual([
      { item_urn: items[0]!.urn, condition: 'MINT', day: isoDay(today - 2 * DAY), units: 3, amount: 3400 },
      { item_urn: items[0]!.urn, condition: 'POOR', day: isoDay(today - 2 * DAY), units: 1, amount: 100 },
      { item_urn: items[1]!.urn, condition: 'GOOD', day: isoDay(today - 3 * DAY), units: 1, amount: 700 },
    ]);
    const [mark] = await db.query(`SELECT to_char(rolled_through, 'YYYY-MM-DD') AS day FROM price_guide_rollup`);
    expect(mark.day).toBe(isoDay(last));
    await recordReplayHistoriesOf(env.client, [workflowId]);
  });
});

describe('the price-guide module Schedule', () => {
  let env: TestWorkflowEnvironment | undefined;
  beforeAll(async () => {
    env = await devServerEnv();
  });
  afterAll(() => env?.teardown());

  it("is created by the module's worker.schedules hook and follows the configured interval on a later start", async () => {
    const config = (every: number) =>
      ({ temporal: { taskQueue: 'price-guide-test' }, priceGuide: { rollupEveryMs: every } }) as ScheduleModuleContext['config'];
    const schedules = priceGuideModule.worker!.schedules!;
    await schedules({ config: config(3_600_000), temporal: env!.client });
    await schedules({ config: config(1_800_000), temporal: env!.client });
    const described = await env!.client.schedule.getHandle('price-guide-rollup').describe();
    expect(described.spec.intervals).toEqual([expect.objectContaining({ every: 1_800_000 })]);
    expect(described.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'priceGuideRollupWorkflow',
      taskQueue: 'price-guide-test',
    });
    expect(described.policies.overlap).toBe('SKIP');
  });
});
