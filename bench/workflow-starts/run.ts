/**
 * Commit → workflow start latency through the start outbox, at idle: one intent committed at a
 * time (the dispatcher woken by NOTIFY at commit), then a burst committed at once; beside it, a
 * direct `workflow.start` from the same client (what a request used to pay inline). The latency
 * ends when Temporal has accepted the start. No worker is needed: the workflows only start.
 *
 *   node -r ts-node/register bench/workflow-starts/run.ts   (BENCH_STARTS, BENCH_BURST to scale)
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime, DefaultLogger } from '@temporalio/worker';
import { adminQuery, percentile } from '../support';
import { loadConfig } from '../../src/config';
import { connectAndMigrate } from '../../src/db/data-source';
import { newId } from '../../src/ids';
import { createLogger } from '../../src/logger';
import { requestWorkflowStart, type WorkflowStart } from '../../src/services/workflow-starts';
import { StartDispatcher } from '../../src/services/workflow-starts/dispatcher';
import { TemporalStartExecutor } from '../../src/temporal/start-executor';

const ROOT = path.resolve(__dirname, '../..');
const STARTS = Number(process.env.BENCH_STARTS ?? 300);
const BURST = Number(process.env.BENCH_BURST ?? 200);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TEMPORAL_CLI = process.env.TEMPORAL_CLI_PATH ?? path.join(ROOT, '.venv/bin/temporal');
const TASK_QUEUE = 'bench-starts';

interface Result {
  scenario: string;
  n: number;
  p50: number;
  p99: number;
  max: number;
}

const summarise = (scenario: string, latencies: number[]): Result => {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { scenario, n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN };
};

const noop = (): WorkflowStart => ({ workflowType: 'benchNoopWorkflow', workflowId: `bench-start:${newId()}`, args: [] });

async function waitFor(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const dbName = `bench_starts_${Date.now()}`;
  await adminQuery(ADMIN_URL, `CREATE DATABASE ${dbName}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${dbName}`;
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: TEMPORAL_CLI }, namespace: 'default' },
  });
  const config = loadConfig({
    NODE_ENV: 'development',
    DATABASE_URL: url.toString(),
    LOG_LEVEL: 'warn',
    JWT_SECRET: randomBytes(32).toString('hex'),
  });
  const db = await connectAndMigrate({ url: url.toString() });
  // The executor the worker uses, timed: a start counts when Temporal has accepted it.
  const inner = new TemporalStartExecutor(env.client, TASK_QUEUE);
  const startedAt = new Map<string, number>();
  const dispatcher = new StartDispatcher({
    db,
    databaseUrl: url.toString(),
    executor: {
      execute: async (s, how) => {
        const outcome = await inner.execute(s, how);
        startedAt.set(s.workflowId, Date.now());
        return outcome;
      },
    },
    intervalMs: config.starts.intervalMs,
    retryMaxMs: config.starts.retryMaxMs,
    log: createLogger('warn', 'bench-dispatcher'),
  });
  try {
    dispatcher.start();
    await new Promise((r) => setTimeout(r, 500)); // LISTEN is up, the first (empty) pass done

    // Direct starts: the cost of one inline start from the same client.
    const direct: number[] = [];
    for (let i = 0; i < STARTS; i++) {
      const t0 = Date.now();
      await inner.execute(noop(), { eager: false });
      direct.push(Date.now() - t0);
    }

    // Idle: one commit at a time, the next after the previous has started.
    const idle: number[] = [];
    for (let i = 0; i < STARTS; i++) {
      const start = noop();
      await db.transaction((tx) => requestWorkflowStart(tx, start));
      const committed = Date.now();
      await waitFor(() => startedAt.has(start.workflowId), 'an idle start');
      idle.push(startedAt.get(start.workflowId)! - committed);
      await new Promise((r) => setTimeout(r, 10));
    }

    // Burst: BURST transactions committed at once.
    const burst = Array.from({ length: BURST }, noop);
    const committedAt = new Map<string, number>();
    await Promise.all(
      burst.map(async (s) => {
        await db.transaction((tx) => requestWorkflowStart(tx, s));
        committedAt.set(s.workflowId, Date.now());
      }),
    );
    await waitFor(() => burst.every((s) => startedAt.has(s.workflowId)), 'the burst');
    const results = [
      summarise('direct workflow.start (inline, for comparison)', direct),
      summarise('outbox, idle: one commit at a time', idle),
      summarise(
        `outbox, burst: ${BURST} commits at once`,
        burst.map((s) => startedAt.get(s.workflowId)! - committedAt.get(s.workflowId)!),
      ),
    ];
    for (const r of results) console.log(r);
    writeReport(results);
  } finally {
    await dispatcher.stop();
    await db.destroy();
    await env.teardown();
    await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  }
}

function writeReport(results: Result[]): void {
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  const text = [
    '# Workflow-start outbox: commit → start latency',
    '',
    `Run ${new Date().toISOString()} on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ` +
      `Temporal CLI dev server (in-memory), PostgreSQL on 127.0.0.1; load average at the end ${load}.`,
    '',
    'Latency: from the commit returning to Temporal accepting the start (the dispatcher is woken by',
    'NOTIFY at commit; one pass claims, starts and stamps).',
    '',
    '| scenario | starts | p50 ms | p99 ms | max ms |',
    '|---|---|---|---|---|',
    ...results.map((r) => `| ${r.scenario} | ${r.n} | ${r.p50} | ${r.p99} | ${r.max} |`),
    '',
    'Reproduce with `node -r ts-node/register bench/workflow-starts/run.ts` (`BENCH_STARTS`, `BENCH_BURST`).',
    '',
  ].join('\n');
  mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(path.join(ROOT, 'bench/results/workflow-starts.md'), text);
  console.log(text);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
