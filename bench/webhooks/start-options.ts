/**
 * What the Temporal server pays for each thing a webhook delivery adds to a bare workflow: the
 * search attributes and summary it is started with, its fairness key, and the patch marker and
 * `WebhookOutcome` upsert when it ends, which a delivered delivery now skips
 * (src/modules/webhooks.ts, workflows/webhook-delivery.ts); and what it saves by running its
 * attempt as a local activity. The webhook benchmark shows the whole difference; this splits
 * the server's part of it.
 *
 * Per variant, BENCH_ROUNDS (2) times, in turn: a new dev server (in memory, task-queue fairness
 * on; a new one each time because its cost grows with the workflows it holds, see
 * dev-server-aging.ts), a worker in this process, one warm-up workflow, then BENCH_WORKFLOWS
 * (2,000) workflows started 100 at a time; workflows/s and the server's CPU time per workflow.
 * `BENCH_VARIANTS=1,9,8,10` runs those variants only (numbered as listed below, from 1).
 *
 *   node -r ts-node/register bench/webhooks/start-options.ts
 *
 * Writes bench/results/temporal-start-options.md (or BENCH_RESULTS).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WorkflowStartOptions } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, Runtime, type WorkerOptions } from '@temporalio/worker';
import { cpuShare, cpuTicks, freePort, portOpen, spawnTemporalDevServer, stopChild, waitFor } from '../support';
import { WEBHOOK_SEARCH_ATTRIBUTES } from '../../src/domain/webhooks/search-attributes';
import { newId } from '../../src/ids';
import { TASK_QUEUE_FAIRNESS_ARGS } from '../../src/temporal/task-queue-fairness';
import { BareWorkflows } from './bare-workflows';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const WORKFLOWS = Number(process.env.BENCH_WORKFLOWS ?? 2000);
/** Sellers the fairness keys cycle through. */
const SELLERS = 3;
const TICK_MS = 10; // /proc clock ticks are 1/100 s

interface Variant {
  name: string;
  workflowType: 'baselineWorkflow' | 'baselineWithOutcomeWorkflow' | 'baselineLocalWorkflow';
  /** The start options a delivery has beyond a bare start (n: the workflow's number). */
  options: (n: number) => Partial<WorkflowStartOptions>;
}

/** A delivery's search attributes, as `webhookDeliveryStart` (src/modules/webhooks.ts) sets them. */
const searchAttributes = (): Partial<WorkflowStartOptions> => ({
  typedSearchAttributes: [
    { key: WEBHOOK_SEARCH_ATTRIBUTES.endpointId, value: newId() },
    { key: WEBHOOK_SEARCH_ATTRIBUTES.sellerId, value: newId() },
    { key: WEBHOOK_SEARCH_ATTRIBUTES.eventType, value: 'LISTING_CREATED' },
  ],
});
/** A delivery's summary, as long as the one `webhookDeliveryStart` writes. */
const summary = (): Partial<WorkflowStartOptions> => ({
  staticSummary: `Webhook LISTING_CREATED event ${newId()} to endpoint ${newId()} of seller ${newId()}`,
});
const fairnessKey = (n: number): Partial<WorkflowStartOptions> => ({ priority: { fairnessKey: `seller-${n % SELLERS}` } });
const all =
  (...parts: Array<(n: number) => Partial<WorkflowStartOptions>>) =>
  (n: number) =>
    Object.assign({}, ...parts.map((part) => part(n))) as Partial<WorkflowStartOptions>;

const ALL_VARIANTS: Variant[] = [
  { name: 'bare workflow', workflowType: 'baselineWorkflow', options: () => ({}) },
  { name: '+ search attributes', workflowType: 'baselineWorkflow', options: searchAttributes },
  { name: '+ summary', workflowType: 'baselineWorkflow', options: summary },
  { name: '+ search attributes and summary', workflowType: 'baselineWorkflow', options: all(searchAttributes, summary) },
  { name: '+ fairness key', workflowType: 'baselineWorkflow', options: fairnessKey },
  {
    name: '+ search attributes, outcome upsert and patch marker',
    workflowType: 'baselineWithOutcomeWorkflow',
    options: all(searchAttributes, summary),
  },
  {
    name: 'all of them (a delivery before the outcome went to failures only)',
    workflowType: 'baselineWithOutcomeWorkflow',
    options: all(searchAttributes, summary, fairnessKey),
  },
  {
    name: 'a delivered delivery, its attempt an ordinary activity (search attributes, summary, fairness key)',
    workflowType: 'baselineWorkflow',
    options: all(searchAttributes, summary, fairnessKey),
  },
  { name: 'bare workflow, its activity local', workflowType: 'baselineLocalWorkflow', options: () => ({}) },
  {
    name: 'a delivered delivery as it runs now: the same, its attempt local',
    workflowType: 'baselineLocalWorkflow',
    options: all(searchAttributes, summary, fairnessKey),
  },
];

/** `BENCH_VARIANTS` (comma-separated numbers, from 1) picks some of them; all by default. */
const VARIANTS = process.env.BENCH_VARIANTS ? process.env.BENCH_VARIANTS.split(',').map(variantNumbered) : ALL_VARIANTS;

function variantNumbered(n: string): Variant {
  const variant = ALL_VARIANTS[Number(n) - 1];
  if (!variant) throw new Error(`BENCH_VARIANTS: no variant ${n} (1 to ${ALL_VARIANTS.length})`);
  return variant;
}

interface Measure {
  rate: number;
  serverMs: number;
}

async function measure(variant: Variant, workflowBundle: WorkerOptions['workflowBundle']): Promise<Measure> {
  const port = await freePort();
  const temporal = spawnTemporalDevServer(port, TASK_QUEUE_FAIRNESS_ARGS);
  try {
    await waitFor(() => portOpen(port), 'the Temporal dev server', 60_000);
    const bench = await BareWorkflows.start(`127.0.0.1:${port}`, 'bench-start-options', workflowBundle);
    await bench.burst(1, { workflowId: () => 'warm-up' });
    const { seconds, cpu } = await bench.burst(WORKFLOWS, {
      workflowType: variant.workflowType,
      // As long as a delivery's id, `webhook:{eventId}:{endpointId}`.
      workflowId: (id) => `webhook:${id}:${newId()}`,
      options: (n) => ({ workflowIdReusePolicy: 'REJECT_DUPLICATE', ...variant.options(n) }),
    });
    await bench.close();
    return { rate: WORKFLOWS / seconds, serverMs: ((cpu.groups.get('Temporal server') ?? 0) * TICK_MS) / WORKFLOWS };
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
    'Reproduce with `node -r ts-node/register bench/webhooks/start-options.ts` (`BENCH_ROUNDS`, `BENCH_WORKFLOWS`, `BENCH_VARIANTS`).',
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
