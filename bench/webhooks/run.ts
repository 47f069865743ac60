/**
 * Webhook fan-out benchmark: BENCH_EVENTS events (default 10,000), each to 2 subscribed endpoints
 * on a local receiver, through the real path (outbox → dispatcher → Temporal → worker → HTTP).
 * Baseline, in the same run and on the same Temporal dev server: one trivial one-activity
 * workflow per event. Both are bursts: every event is committed (or started) as fast as the
 * producer can, and latency runs from that moment to receipt, so it includes the queueing a
 * burst of that size causes.
 *
 *   node -r ts-node/register bench/webhooks/run.ts      (BENCH_EVENTS=2000 for a shorter run)
 *
 * Writes bench/results/webhooks.md.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { Client as PgClient } from 'pg';
import { percentile, rssAtEnd } from '../support';
import { loadConfig } from '../../src/config';
import { connectAndMigrate } from '../../src/db/data-source';
import { newId } from '../../src/ids';
import { createLogger } from '../../src/logger';
import { emitEvents, type ListingEventData } from '../../src/services/events/outbox';
import { createStartDispatcher } from '../../worker/start-dispatcher';
import { encryptSecret, newSigningSecret } from '../../src/services/webhooks/signing';
import { createWorker } from '../../worker/create-worker';
import type { baselineWorkflow } from './baseline-workflow';

const ROOT = path.resolve(__dirname, '../..');
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const ENDPOINTS = 2;
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TEMPORAL_CLI = process.env.TEMPORAL_CLI_PATH ?? path.join(ROOT, '.venv/bin/temporal');
const TIMEOUT_MS = 20 * 60_000;
const PRODUCER_BATCH = 100;

interface Result {
  scenario: string;
  events: number;
  deliveries: number;
  seconds: number;
  rate: number;
  p50: number;
  p99: number;
}

function summarise(
  scenario: string,
  events: number,
  started: Map<string, number>,
  received: Map<string, number>,
  keyToEvent: (k: string) => string,
): Result {
  const latencies = [...received].map(([key, at]) => at - started.get(keyToEvent(key))!).sort((a, b) => a - b);
  const first = Math.min(...started.values());
  const last = Math.max(...received.values());
  const seconds = (last - first) / 1000;
  return {
    scenario,
    events,
    deliveries: received.size,
    seconds,
    rate: received.size / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

async function waitFor(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function baseline(env: TestWorkflowEnvironment): Promise<Result> {
  const started = new Map<string, number>();
  const done = new Map<string, number>();
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: 'bench-baseline',
    workflowBundle: await bundleWorkflowCode({ workflowsPath: require.resolve('./baseline-workflow'), logger: new DefaultLogger('WARN') }),
    activities: { touch: async (eventId: string) => void done.set(eventId, Date.now()) },
  });
  const run = worker.run();
  const ids = Array.from({ length: EVENTS }, () => newId());
  for (let i = 0; i < ids.length; i += PRODUCER_BATCH) {
    await Promise.all(
      ids.slice(i, i + PRODUCER_BATCH).map((id) => {
        started.set(id, Date.now());
        return env.client.workflow.start<typeof baselineWorkflow>('baselineWorkflow', {
          workflowId: `bench-baseline:${id}`,
          taskQueue: 'bench-baseline',
          args: [id],
        });
      }),
    );
  }
  await waitFor(() => done.size === EVENTS, 'baseline activities');
  worker.shutdown();
  await run;
  return summarise('baseline: one trivial activity workflow per event', EVENTS, started, done, (k) => k);
}

async function webhooks(env: TestWorkflowEnvironment, databaseUrl: string): Promise<Result> {
  // The receiver: first receipt per (event, endpoint).
  const received = new Map<string, number>();
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const key = `${req.headers['webhook-id']}|${req.url}`;
      if (!received.has(key)) received.set(key, Date.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  const config = loadConfig({
    NODE_ENV: 'development',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_TASK_QUEUE: 'bench-webhooks',
    LOG_LEVEL: 'warn',
    JWT_SECRET: randomBytes(32).toString('hex'),
  });
  const db = await connectAndMigrate({ url: databaseUrl, poolSize: 20 });
  const sellerId = newId();
  await db.query(`INSERT INTO users (id, email, username, password_hash) VALUES ($1, 'bench@example.test', 'bench', 'x')`, [sellerId]);
  await db.query(`INSERT INTO seller_accounts (user_id) VALUES ($1)`, [sellerId]);
  for (let i = 0; i < ENDPOINTS; i++) {
    await db.query(
      `INSERT INTO webhook_endpoints (id, seller_id, url, subscriptions, enabled, secret_encrypted) VALUES ($1, $2, $3, '{LISTING_CREATED}', true, $4)`,
      [newId(), sellerId, `${base}/endpoint-${i}`, encryptSecret(config.webhooks.secretKey, newSigningSecret())],
    );
  }

  const worker = await createWorker({ config, db, connection: env.nativeConnection });
  const run = worker.run();
  const dispatcher = createStartDispatcher(config, db, env.client, createLogger('warn', 'bench-dispatcher'));
  dispatcher.start();

  const committed = new Map<string, number>();
  for (let i = 0; i < EVENTS; i += PRODUCER_BATCH) {
    const batch: ListingEventData[] = Array.from({ length: Math.min(PRODUCER_BATCH, EVENTS - i) }, (_, j) => ({
      sellerId,
      createdAt: new Date().toISOString(),
      urn: `urn:mts:card:bench-${i + j}`,
      listingId: newId(),
      quantity: 1,
      price: 100,
    }));
    const ids = await db.transaction((tx) => emitEvents(tx, 'LISTING_CREATED', batch));
    const at = Date.now();
    for (const id of ids) committed.set(id, at);
  }
  await waitFor(() => received.size === EVENTS * ENDPOINTS, 'webhook receipts');
  const result = summarise(
    `webhooks: ${ENDPOINTS} endpoints per event, signed HTTP POST`,
    EVENTS,
    committed,
    received,
    (k) => k.split('|')[0]!,
  );

  await dispatcher.stop();
  worker.shutdown();
  await run;
  await db.destroy();
  receiver.close();
  return result;
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const dbName = `bench_webhooks_${randomBytes(4).toString('hex')}`;
  const admin = new PgClient({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${dbName}`;
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: TEMPORAL_CLI }, namespace: 'default' },
  });
  try {
    console.log(`baseline: ${EVENTS} workflows…`);
    const b = await baseline(env);
    console.log(b);
    console.log(`webhooks: ${EVENTS} events × ${ENDPOINTS} endpoints…`);
    const w = await webhooks(env, url.toString());
    console.log(w);
    writeReport([b, w]);
  } finally {
    await env.teardown();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

function writeReport(results: Result[]): void {
  const [b, w] = results as [Result, Result];
  const row = (r: Result) =>
    `| ${r.scenario} | ${r.events} | ${r.deliveries} | ${r.seconds.toFixed(1)} | ${r.rate.toFixed(0)} | ${r.p50} | ${r.p99} |`;
  const text = [
    '# Webhook fan-out benchmark',
    '',
    `Run ${new Date().toISOString()} on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ` +
      'Temporal CLI dev server (in-memory), PostgreSQL on 127.0.0.1, receiver on loopback. Same process, same dev server, baseline first.',
    '',
    '| scenario | events | deliveries | seconds | deliveries/s | p50 ms (commit → receipt) | p99 ms |',
    '|---|---|---|---|---|---|---|',
    row(b),
    row(w),
    '',
    `Webhook rate = **${((100 * w.rate) / b.rate).toFixed(0)} %** of the baseline's (target ≥ 70 %).`,
    '',
    rssAtEnd([['bench process (worker in-process, no API)', 'self']], 'read after the worker stopped; the peak covers the run'),
    '',
    'Both are bursts: latency includes the queueing of the whole burst. Reproduce with',
    '`node -r ts-node/register bench/webhooks/run.ts` (`BENCH_EVENTS` to scale).',
    '',
  ].join('\n');
  mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(path.join(ROOT, 'bench/results/webhooks.md'), text);
  console.log(text);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
