/**
 * What the Temporal server pays for each thing a webhook delivery adds to a bare workflow: the
 * search attributes and summary it is started with, its fairness key, and the patch marker and
 * `WebhookOutcome` upsert when it ends (src/services/workflow-starts/starts.ts,
 * workflows/webhook-delivery.ts). The webhook benchmark shows the whole difference; this splits
 * the server's part of it.
 *
 * Per variant, BENCH_ROUNDS (2) times, in turn: a new dev server (in memory, task-queue fairness
 * on; a new one each time because its cost grows with the workflows it holds, see
 * dev-server-aging.ts), a worker in this process, one warm-up workflow, then BENCH_WORKFLOWS
 * (2,000) workflows started 100 at a time; workflows/s and the server's CPU time per workflow.
 *
 *   node -r ts-node/register bench/webhooks/start-options.ts
 *
 * Writes bench/results/temporal-start-options.md (or BENCH_RESULTS).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, type WorkflowStartOptions } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { cpuShare, cpuTicks, cpuTicksByGroup, freePort, portOpen, processCpuTicks, spawnTemporalDevServer, stopChild } from '../support';
import { WEBHOOK_SEARCH_ATTRIBUTES } from '../../src/domain/webhooks/search-attributes';
import { newId } from '../../src/ids';
import { TASK_QUEUE_FAIRNESS_ARGS } from '../../src/temporal/task-queue-fairness';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const WORKFLOWS = Number(process.env.BENCH_WORKFLOWS ?? 2000);
const START_BATCH = 100;
/** Sellers the fairness keys cycle through. */
const SELLERS = 3;
const TICK_MS = 10; // /proc clock ticks are 1/100 s
const TASK_QUEUE = 'bench-start-options';

interface Variant {
  name: string;
  workflowType: 'baselineWorkflow' | 'baselineWithOutcomeWorkflow';
  /** The start options a delivery has beyond a bare start (n: the workflow's number). */
  options: (n: number) => Partial<WorkflowStartOptions>;
}

/** A delivery's search attributes and summary, as `starts.webhookDelivery` sets them. */
const searchAttributes = (): Partial<WorkflowStartOptions> => {
  const [eventId, endpointId, sellerId] = [newId(), newId(), newId()];
  return {
    staticSummary: `Webhook LISTING_CREATED event ${eventId} to endpoint ${endpointId} of seller ${sellerId}`,
    typedSearchAttributes: [
      { key: WEBHOOK_SEARCH_ATTRIBUTES.endpointId, value: endpointId },
      { key: WEBHOOK_SEARCH_ATTRIBUTES.sellerId, value: sellerId },
      { key: WEBHOOK_SEARCH_ATTRIBUTES.eventType, value: 'LISTING_CREATED' },
    ],
  };
};
const fairnessKey = (n: number): Partial<WorkflowStartOptions> => ({ priority: { fairnessKey: `seller-${n % SELLERS}` } });

const VARIANTS: Variant[] = [
  { name: 'bare workflow', workflowType: 'baselineWorkflow', options: () => ({}) },
  { name: '+ search attributes and summary', workflowType: 'baselineWorkflow', options: searchAttributes },
  { name: '+ fairness key', workflowType: 'baselineWorkflow', options: fairnessKey },
  { name: '+ search attributes, outcome upsert and patch marker', workflowType: 'baselineWithOutcomeWorkflow', options: searchAttributes },
  {
    name: 'all of them (as a delivery)',
    workflowType: 'baselineWithOutcomeWorkflow',
    options: (n) => ({ ...searchAttributes(), ...fairnessKey(n) }),
  },
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10 * 60_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(20);
  }
}

interface Measure {
  rate: number;
  serverMs: number;
}

async function measure(variant: Variant, workflowBundle: { code: string }): Promise<Measure> {
  const port = await freePort();
  const temporal = spawnTemporalDevServer(port, TASK_QUEUE_FAIRNESS_ARGS);
  try {
    await until(() => portOpen(port));
    const address = `127.0.0.1:${port}`;
    const connection = await NativeConnection.connect({ address });
    const client = new Client({ connection: await Connection.connect({ address }) });
    const done = new Set<string>();
    const worker = await Worker.create({
      connection,
      taskQueue: TASK_QUEUE,
      workflowBundle,
      activities: { touch: async (id: string) => void done.add(id) },
    });
    const running = worker.run();
    await client.workflow.execute('baselineWorkflow', { workflowId: 'warm-up', taskQueue: TASK_QUEUE, args: ['warm-up'] });
    done.clear();
    const ids = Array.from({ length: WORKFLOWS }, () => newId());
    const before = processCpuTicks();
    const t0 = Date.now();
    for (let i = 0; i < ids.length; i += START_BATCH)
      await Promise.all(
        ids.slice(i, i + START_BATCH).map((id, j) =>
          client.workflow.start(variant.workflowType, {
            workflowId: `webhook:${id}:${newId()}`,
            taskQueue: TASK_QUEUE,
            args: [id],
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
            ...variant.options(i + j),
          }),
        ),
      );
    await until(() => done.size === WORKFLOWS);
    const seconds = (Date.now() - t0) / 1000;
    // The workflows complete just after their activity: let the last completions in.
    await sleep(500);
    const server = cpuTicksByGroup(before, processCpuTicks()).groups.get('Temporal server') ?? 0;
    worker.shutdown();
    await running;
    await client.connection.close();
    await connection.close();
    return { rate: WORKFLOWS / seconds, serverMs: (server * TICK_MS) / WORKFLOWS };
  } finally {
    await stopChild(temporal);
  }
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const loadBefore = os.loadavg();
  const ticks = cpuTicks();
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('./start-options-workflows'),
    logger: new DefaultLogger('WARN'),
  });
  const results = new Map<Variant, Measure[]>(VARIANTS.map((v) => [v, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const variant of VARIANTS) {
      const m = await measure(variant, workflowBundle);
      console.log(variant.name, m);
      results.get(variant)!.push(m);
    }
  }
  writeReport(results, loadBefore, cpuShare(ticks, cpuTicks()));
}

function writeReport(results: Map<Variant, Measure[]>, loadBefore: number[], cpu: string): void {
  const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(' ');
  const list = (values: number[], digits: number) => values.map((v) => v.toFixed(digits)).join(', ');
  const text = [
    '# Temporal dev server: cost of what a webhook delivery adds to a bare workflow',
    '',
    `Run ${new Date().toISOString()} on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ` +
      `Temporal CLI dev server (in memory, task-queue fairness on, a new one per measurement), worker and client in the bench process. ` +
      `Load average (1, 5, 15 min) before ${load(loadBefore)}, after ${load(os.loadavg())}; CPU over the run: ${cpu}.`,
    '',
    `${WORKFLOWS} one-activity workflows per measurement, ${ROUNDS} rounds through the variants in turn; each cell lists the rounds.`,
    '',
    '| variant | workflows/s | Temporal server CPU ms per workflow |',
    '|---|---:|---:|',
    ...[...results].map(
      ([v, ms]) =>
        `| ${v.name} | ${list(
          ms.map((m) => m.rate),
          0,
        )} | ${list(
          ms.map((m) => m.serverMs),
          1,
        )} |`,
    ),
    '',
    'Reproduce with `node -r ts-node/register bench/webhooks/start-options.ts` (`BENCH_ROUNDS`, `BENCH_WORKFLOWS`).',
    '',
  ].join('\n');
  const out = process.env.BENCH_RESULTS ?? path.join(__dirname, '../results/temporal-start-options.md');
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, text);
  console.log(text);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
