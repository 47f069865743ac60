/**
 * Does the Temporal dev server get slower as it holds more closed workflows? The webhook
 * benchmark compares a burst of deliveries with a burst of bare workflows; if the server's cost per
 * workflow grows with what it already holds, the two bursts must each start on an empty server
 * and be the same size, or the comparison measures the server's age rather than the deliveries.
 *
 * One dev server (in memory, task-queue fairness on, as `npm start` runs it), one worker in this
 * process, and BENCH_ROUNDS (10) bursts of BENCH_WORKFLOWS (2,000) bare one-activity workflows
 * (bench/webhooks/baseline-workflow.ts), one after another; per burst: workflows/s and the CPU
 * time per workflow of the server and of this process (client and worker).
 *
 *   node -r ts-node/register bench/webhooks/dev-server-aging.ts
 *
 * Writes bench/results/temporal-dev-server-aging.md (or BENCH_RESULTS).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { cpuShare, cpuTicks, cpuTicksByGroup, freePort, portOpen, processCpuTicks, spawnTemporalDevServer, stopChild } from '../support';
import { newId } from '../../src/ids';
import { TASK_QUEUE_FAIRNESS_ARGS } from '../../src/temporal/task-queue-fairness';
import type { baselineWorkflow } from './baseline-workflow';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const WORKFLOWS = Number(process.env.BENCH_WORKFLOWS ?? 2000);
/** Starts in flight at once, as the webhook benchmark's baseline sends them. */
const START_BATCH = 100;
const TICK_MS = 10; // /proc clock ticks are 1/100 s
const TASK_QUEUE = 'bench-aging';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10 * 60_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(20);
  }
}

interface Round {
  held: number;
  rate: number;
  serverMs: number;
  benchMs: number;
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const loadBefore = os.loadavg();
  const ticks = cpuTicks();
  const port = await freePort();
  const temporal = spawnTemporalDevServer(port, TASK_QUEUE_FAIRNESS_ARGS);
  const rounds: Round[] = [];
  try {
    await until(() => portOpen(port));
    const address = `127.0.0.1:${port}`;
    const connection = await NativeConnection.connect({ address });
    const client = new Client({ connection: await Connection.connect({ address }) });
    const done = new Set<string>();
    const worker = await Worker.create({
      connection,
      taskQueue: TASK_QUEUE,
      workflowBundle: await bundleWorkflowCode({
        workflowsPath: require.resolve('./baseline-workflow'),
        logger: new DefaultLogger('WARN'),
      }),
      activities: { touch: async (id: string) => void done.add(id) },
    });
    const running = worker.run();
    for (let r = 0; r < ROUNDS; r += 1) {
      done.clear();
      const ids = Array.from({ length: WORKFLOWS }, () => newId());
      const before = processCpuTicks();
      const t0 = Date.now();
      for (let i = 0; i < ids.length; i += START_BATCH)
        await Promise.all(
          ids.slice(i, i + START_BATCH).map((id) =>
            client.workflow.start<typeof baselineWorkflow>('baselineWorkflow', {
              workflowId: `aging:${id}`,
              taskQueue: TASK_QUEUE,
              args: [id],
            }),
          ),
        );
      await until(() => done.size === WORKFLOWS);
      const seconds = (Date.now() - t0) / 1000;
      const cpu = cpuTicksByGroup(before, processCpuTicks());
      const perWorkflow = (group: string) => ((cpu.groups.get(group) ?? 0) * TICK_MS) / WORKFLOWS;
      const round = {
        held: r * WORKFLOWS,
        rate: WORKFLOWS / seconds,
        serverMs: perWorkflow('Temporal server'),
        benchMs: perWorkflow('bench process'),
      };
      console.log(round);
      rounds.push(round);
    }
    worker.shutdown();
    await running;
    await client.connection.close();
    await connection.close();
  } finally {
    await stopChild(temporal);
  }
  writeReport(rounds, loadBefore, cpuShare(ticks, cpuTicks()));
}

function writeReport(rounds: Round[], loadBefore: number[], cpu: string): void {
  const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(' ');
  const text = [
    '# Temporal dev server: cost per workflow against the closed workflows it holds',
    '',
    `Run ${new Date().toISOString()} on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ` +
      `Temporal CLI dev server (in memory, task-queue fairness on), worker and client in the bench process. ` +
      `Load average (1, 5, 15 min) before ${load(loadBefore)}, after ${load(os.loadavg())}; CPU over the run: ${cpu}.`,
    '',
    `${ROUNDS} bursts of ${WORKFLOWS} bare one-activity workflows, one after another on the same server.`,
    '',
    '| closed workflows held at the start | workflows/s | Temporal server CPU ms per workflow | bench process CPU ms per workflow |',
    '|---:|---:|---:|---:|',
    ...rounds.map((r) => `| ${r.held} | ${r.rate.toFixed(0)} | ${r.serverMs.toFixed(1)} | ${r.benchMs.toFixed(1)} |`),
    '',
    'Reproduce with `node -r ts-node/register bench/webhooks/dev-server-aging.ts` (`BENCH_ROUNDS`, `BENCH_WORKFLOWS`).',
    '',
  ].join('\n');
  const out = process.env.BENCH_RESULTS ?? path.join(__dirname, '../results/temporal-dev-server-aging.md');
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, text);
  console.log(text);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
