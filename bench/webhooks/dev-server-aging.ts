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
import { bundleWorkflowCode, DefaultLogger, Runtime } from '@temporalio/worker';
import { cpuShare, cpuTicks, freePort, portOpen, spawnTemporalDevServer, stopChild, waitFor } from '../support';
import { TASK_QUEUE_FAIRNESS_ARGS } from '../../src/temporal/task-queue-fairness';
import { BareWorkflows } from './bare-workflows';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const WORKFLOWS = Number(process.env.BENCH_WORKFLOWS ?? 2000);
const TICK_MS = 10; // /proc clock ticks are 1/100 s

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
    await waitFor(() => portOpen(port), 'the Temporal dev server', 60_000);
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('./baseline-workflow'),
      logger: new DefaultLogger('WARN'),
    });
    const bench = await BareWorkflows.start(`127.0.0.1:${port}`, 'bench-aging', workflowBundle);
    for (let r = 0; r < ROUNDS; r += 1) {
      const { seconds, cpu } = await bench.burst(WORKFLOWS, { workflowId: (id) => `aging:${id}` });
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
    await bench.close();
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
