/**
 * Webhook benchmark: throughput of a burst and the commit → receipt latency of single events,
 * through the real path (outbox → fan-out → start dispatcher → Temporal → worker → HTTP) with
 * the compiled API and worker as separate processes (`npm run build` first), a local receiver
 * and a Temporal CLI dev server with task-queue fairness on (as `npm start` runs it).
 *
 * 1. Machine floor: a bare HTTP POST of a delivery-sized body to the receiver on loopback.
 * 2. Baseline burst, same run: one trivial one-activity workflow per delivery, as many as the
 *    burst below makes deliveries.
 * 3. Idle: BENCH_IDLE_EVENTS (200) single events, one at a time with a pause between, from
 *    BENCH_SELLERS (20) sellers with 1 or 2 endpoints each.
 * 4. Burst: BENCH_EVENTS (2,000) events of one seller, 2 endpoints each, committed as fast as the
 *    producer can; meanwhile one single event of another seller every BENCH_PROBE_INTERVAL_MS
 *    (2,000), whose latency shows whether the burst holds everyone else up.
 * Then the resident memory of the API and worker processes. The baseline (2) and the webhook
 * phases (3, 4) each run on a dev server of their own, started empty: the in-memory dev server
 * costs more per workflow the more closed workflows it holds (bench/webhooks/dev-server-aging.ts),
 * so bursts on one server, one after the other, would not meet the same conditions.
 * Phases 2-4 run BENCH_ROUNDS (3) times, the baseline and the webhooks alternating which goes
 * first, each webhook round on a database of its own: a shared host's load drifts over minutes,
 * and one baseline then one webhook burst would charge that drift to whichever ran second. The
 * result is the webhook rate over the baseline's per round, and their median.
 *
 *   npm run build && node -r ts-node/register bench/webhooks/run.ts        (BENCH_EVENTS=500 for a shorter run)
 *
 * BENCH_FAIRNESS=0 starts the dev server without task-queue fairness, for comparison.
 * Writes bench/results/webhooks.md (or BENCH_RESULTS).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Runtime } from '@temporalio/worker';
import { Client as PgClient } from 'pg';
import type { DataSource } from 'typeorm';
import {
  cpuShare,
  cpuTicks,
  cpuTicksByGroup,
  endsWithBench,
  freePort,
  percentile,
  portOpen,
  processCpuTicks,
  rss,
  spawnTemporalDevServer,
  stopChild,
  waitFor,
} from '../support';
import { loadConfig } from '../../src/config';
import { connectAndMigrate } from '../../src/db/data-source';
import { newId } from '../../src/ids';
import { emitEvents, type ListingEventData } from '../../src/services/events/outbox';
import { listingEventData } from '../../test/support/listings';
import { encryptSecret, newSigningSecret } from '../../src/services/webhooks/signing';
import { TASK_QUEUE_FAIRNESS_ARGS } from '../../src/temporal/task-queue-fairness';
import API_NODE_FLAGS from '../../src/api-node-flags.json';
import WORKER_NODE_FLAGS from '../../worker/node-flags.json';
import { BareWorkflows } from './bare-workflows';

const ROOT = path.resolve(__dirname, '../..');
const EVENTS = Number(process.env.BENCH_EVENTS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IDLE_EVENTS = Number(process.env.BENCH_IDLE_EVENTS ?? 200);
const SELLERS = Number(process.env.BENCH_SELLERS ?? 20);
const PROBE_INTERVAL_MS = Number(process.env.BENCH_PROBE_INTERVAL_MS ?? 2000);
const IDLE_GAP_MS = 100;
const FLOOR_REQUESTS = 200;
const FAIRNESS = process.env.BENCH_FAIRNESS !== '0';
const BURST_ENDPOINTS = 2;
/** The baseline starts as many workflows as the burst makes deliveries (one workflow each). */
const BASELINE_WORKFLOWS = EVENTS * BURST_ENDPOINTS;
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PRODUCER_BATCH = 100;
const JWT_SECRET = randomBytes(32).toString('hex');

interface Burst {
  scenario: string;
  events: number;
  deliveries: number;
  seconds: number;
  rate: number;
  p50: number;
  p99: number;
  /** CPU time the burst cost, by process, in clock ticks (`cpuTicksByGroup`). */
  cpu: ReturnType<typeof cpuTicksByGroup>;
}

interface Latency {
  scenario: string;
  samples: number;
  p50: number;
  p99: number;
  max: number;
}

/** One stage of the probe events' path, its time per event (ms). */
interface Stage {
  name: string;
  values: number[];
}

/** What one webhook phase measured; the single-event latencies and stages are pooled over the rounds. */
interface WebhookPhase {
  burst: Burst;
  idle: number[];
  during: number[];
  failed: number;
  memory: Record<'api' | 'worker', { now: number; peak: number }>;
  stages: Stage[];
}

/** A round: a baseline burst and a webhook burst, each on a dev server of its own. */
interface Round {
  webhooksFirst: boolean;
  baseline: Burst;
  webhooks: WebhookPhase;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function latency(scenario: string, values: number[]): Latency {
  const sorted = [...values].sort((a, b) => a - b);
  return { scenario, samples: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN };
}

/**
 * Records the first receipt of each (event, endpoint), indexed by event, and counts the first
 * receipts per seller (the path `/seller-{n}/…`), so that waiting for a receipt is a lookup: a
 * waiter that scanned every receipt would starve this very server on a loaded machine.
 */
class Receiver {
  readonly byEvent = new Map<string, Map<string, number>>();
  readonly perSeller = new Map<string, number>();
  private readonly server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const eventId = String(req.headers['webhook-id'] ?? '');
      const endpoints = this.byEvent.get(eventId) ?? new Map<string, number>();
      this.byEvent.set(eventId, endpoints);
      if (!endpoints.has(req.url ?? '')) {
        endpoints.set(req.url ?? '', Date.now());
        const seller = (req.url ?? '').split('/')[1] ?? '';
        this.perSeller.set(seller, (this.perSeller.get(seller) ?? 0) + 1);
      }
      res.writeHead(204).end();
    });
  });

  /** First receipt times of an event's deliveries. */
  receipts(eventId: string): number[] {
    return [...(this.byEvent.get(eventId)?.values() ?? [])];
  }

  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

/** The machine's floor for a delivery: one HTTP POST of a delivery-sized body over loopback, one at a time. */
async function floor(base: string): Promise<Latency> {
  const body = JSON.stringify({ type: 'LISTING_CREATED', data: { pad: 'x'.repeat(200) } });
  const agent = new http.Agent({ keepAlive: false });
  const values: number[] = [];
  for (let i = 0; i < FLOOR_REQUESTS; i += 1) {
    const t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      const req = http.request(
        `${base}/floor`,
        { method: 'POST', agent, headers: { 'content-type': 'application/json', 'webhook-id': `floor-${i}` } },
        (res) => (res.resume(), res.on('end', resolve)),
      );
      req.once('error', reject);
      req.end(body);
    });
    values.push(performance.now() - t0);
  }
  return latency('machine floor: one HTTP POST on loopback, no database or Temporal', values.map(Math.round));
}

async function baseline(address: string): Promise<Burst> {
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('./baseline-workflow'),
    logger: new DefaultLogger('WARN'),
  });
  const bench = await BareWorkflows.start(address, 'bench-baseline', workflowBundle);
  const { started, done, seconds, cpu } = await bench.burst(BASELINE_WORKFLOWS, { workflowId: (id) => `bench-baseline:${id}` });
  await bench.close();
  const latencies = [...done].map(([id, at]) => at - started.get(id)!).sort((a, b) => a - b);
  return {
    scenario: 'baseline: one trivial activity workflow per delivery',
    events: BASELINE_WORKFLOWS,
    deliveries: done.size,
    seconds,
    rate: done.size / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpu,
  };
}

interface Seller {
  id: string;
  endpoints: number;
}

async function seedSeller(db: PgClient, base: string, secretKey: Buffer, endpoints: number, n: number): Promise<Seller> {
  const id = newId();
  await db.query(`INSERT INTO users (id, email, username, password_hash) VALUES ($1, $2, $3, 'x')`, [
    id,
    `bench-${n}@example.test`,
    `bench${n}`,
  ]);
  await db.query(`INSERT INTO seller_accounts (user_id) VALUES ($1)`, [id]);
  for (let i = 0; i < endpoints; i += 1) {
    await db.query(
      `INSERT INTO webhook_endpoints (id, seller_id, url, subscriptions, enabled, secret_encrypted) VALUES ($1, $2, $3, '{LISTING_CREATED}', true, $4)`,
      [newId(), id, `${base}/seller-${n}/endpoint-${i}`, encryptSecret(secretKey, newSigningSecret())],
    );
  }
  return { id, endpoints };
}

interface Stack {
  api: ChildProcess;
  worker: ChildProcess;
}

async function startStack(databaseUrl: string, temporalAddress: string): Promise<Stack & { apiBase: string }> {
  const [port, metrics] = await Promise.all([freePort(), freePort()]);
  const env = {
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
    METRICS_PORT: String(metrics),
    WORKER_METRICS_PORT: '0',
    CODEC_PORT: '0',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: 'bench-webhooks',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    JWT_SECRET,
  };
  const api = endsWithBench(
    spawn(process.execPath, [...API_NODE_FLAGS, 'dist/src/main.js'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] }),
  );
  children.push(api);
  const apiBase = `http://127.0.0.1:${port}`;
  await waitFor(async () => {
    if (api.exitCode !== null) throw new Error(`the API exited (${api.exitCode}) before it was ready`);
    return (await fetch(`${apiBase}/readyz`).catch(() => undefined))?.ok === true;
  }, 'the API to be ready');
  // The API has migrated the database; the worker starts on it.
  const worker = endsWithBench(
    spawn(process.execPath, [...WORKER_NODE_FLAGS, 'dist/worker/main.js'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  children.push(worker);
  worker.once('exit', (code) => code !== 0 && code !== null && console.error(`the worker exited (${code})`));
  return { api, worker, apiBase };
}

/** The API and worker processes, stopped however the run ends. */
const children: ChildProcess[] = [];

async function webhooks(databaseUrl: string, temporalAddress: string, receiver: Receiver, base: string): Promise<WebhookPhase> {
  const stack = await startStack(databaseUrl, temporalAddress);
  const pg = new PgClient({ connectionString: databaseUrl });
  await pg.connect();
  // The same key derivation as the processes (WEBHOOK_SECRET_KEY unset: from JWT_SECRET).
  const secretKey = loadConfig({ DATABASE_URL: databaseUrl, JWT_SECRET }).webhooks.secretKey;
  const burstSeller = await seedSeller(pg, base, secretKey, BURST_ENDPOINTS, 0);
  const others: Seller[] = [];
  for (let i = 1; i <= SELLERS; i += 1) others.push(await seedSeller(pg, base, secretKey, 1 + (i % 2), i));
  await pg.end();
  // The producer commits through the same `emitEvents` the API's services call in their transactions.
  const db = await connectAndMigrate({ url: databaseUrl, poolSize: 4 });
  const commit = async (sellerId: string, events: ListingEventData[]) => {
    const ids = await db.transaction((tx) =>
      emitEvents(
        tx,
        'LISTING_CREATED',
        events.map((e) => ({ ...e, sellerId })),
      ),
    );
    return { ids, at: Date.now() };
  };
  const receiptsOf = (eventId: string) => receiver.receipts(eventId);

  // The worker is ready once a delivery goes through.
  const warm = await commit(others[0]!.id, [listingEventData(others[0]!.id, -1)]);
  await waitFor(() => receiptsOf(warm.ids[0]!).length === others[0]!.endpoints, 'the first delivery (worker start-up)', 180_000);

  /** Commits one event of `seller`, resolves with the commit → receipt latency of each of its deliveries. */
  const single = async (seller: Seller, n: number, committedAt?: Map<string, number>): Promise<number[]> => {
    const { ids, at } = await commit(seller.id, [listingEventData(seller.id, n)]);
    committedAt?.set(ids[0]!, at);
    await waitFor(() => receiptsOf(ids[0]!).length === seller.endpoints, `delivery of single event ${n}`);
    return receiptsOf(ids[0]!).map((t) => t - at);
  };

  console.log(`idle: ${IDLE_EVENTS} single events…`);
  const idle: number[] = [];
  for (let i = 0; i < IDLE_EVENTS; i += 1) {
    idle.push(...(await single(others[i % others.length]!, i)));
    await sleep(IDLE_GAP_MS);
  }

  console.log(`burst: ${EVENTS} events × ${BURST_ENDPOINTS} endpoints, another seller's event every ${PROBE_INTERVAL_MS} ms…`);
  const committed = new Map<string, number>();
  let burstDone = false;
  const during: number[] = [];
  const probeCommits = new Map<string, number>();
  const probes = (async () => {
    const pending: Array<Promise<number[]>> = [];
    for (let i = 0; !burstDone; i += 1) {
      pending.push(single(others[i % others.length]!, 10_000 + i, probeCommits));
      await sleep(PROBE_INTERVAL_MS);
    }
    for (const values of await Promise.all(pending)) during.push(...values);
  })();
  const cpuBefore = processCpuTicks({ API: stack.api.pid!, worker: stack.worker.pid! });
  for (let i = 0; i < EVENTS; i += PRODUCER_BATCH) {
    const batch = Array.from({ length: Math.min(PRODUCER_BATCH, EVENTS - i) }, (_, j) => listingEventData(burstSeller.id, i + j));
    const { ids, at } = await commit(burstSeller.id, batch);
    for (const id of ids) committed.set(id, at);
  }
  await waitFor(() => (receiver.perSeller.get('seller-0') ?? 0) === EVENTS * BURST_ENDPOINTS, 'the burst receipts');
  const cpu = cpuTicksByGroup(cpuBefore, processCpuTicks({ API: stack.api.pid!, worker: stack.worker.pid! }));
  burstDone = true;
  await probes;
  const receipts = [...committed].flatMap(([id, at]) => receiver.receipts(id).map((t) => ({ at: t, latency: t - at })));
  const latencies = receipts.map((r) => r.latency).sort((a, b) => a - b);
  const seconds = (Math.max(...receipts.map((r) => r.at)) - Math.min(...committed.values())) / 1000;
  const burst: Burst = {
    scenario: `webhooks: ${BURST_ENDPOINTS} endpoints per event, signed HTTP POST`,
    events: EVENTS,
    deliveries: receipts.length,
    seconds,
    rate: receipts.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpu,
  };
  const memory = { api: rss(stack.api.pid!), worker: rss(stack.worker.pid!) };
  const stages = await probeStages(db, probeCommits, receiptsOf);
  // Every attempt should succeed at once; a failed one (e.g. a receiver timeout) means a retry skewed the figures.
  const [{ failed }] = await db.query(`SELECT count(*)::int AS failed FROM webhook_attempts WHERE NOT succeeded`);
  await db.destroy();
  await stopChild(stack.worker);
  await stopChild(stack.api);
  return { burst, idle, during, failed, memory, stages };
}

/**
 * Where the time of each probe event during the burst went, stage by stage, from the database's
 * own timestamps: the fan-out stamping the event, the dispatcher's start of its (last-started)
 * delivery workflow, that delivery's attempt in the worker, and its (last) receipt.
 */
async function probeStages(db: DataSource, committedAt: Map<string, number>, receiptsOf: (eventId: string) => number[]): Promise<Stage[]> {
  const rows: Array<{ id: string; dispatched: number; started: number; attempted: number }> = await db.query(
    `SELECT o.id, extract(epoch FROM o.dispatched_at) * 1000 AS dispatched,
            max(extract(epoch FROM w.started_at)) * 1000 AS started, max(extract(epoch FROM a.attempted_at)) * 1000 AS attempted
       FROM outbox_events o
       JOIN webhook_deliveries d ON d.event_id = o.id
       JOIN workflow_starts w ON w.workflow_id = 'webhook:' || o.id || ':' || d.endpoint_id AND w.request_key = ''
       JOIN webhook_attempts a ON a.delivery_id = d.id
      WHERE o.id = ANY ($1::uuid[])
      GROUP BY o.id, o.dispatched_at`,
    [[...committedAt.keys()]],
  );
  const stage = (name: string, f: (r: (typeof rows)[number]) => number): Stage => ({ name, values: rows.map((r) => Math.round(f(r))) });
  return [
    stage('commit → fanned out (outbox event stamped, delivery intents written)', (r) => Number(r.dispatched) - committedAt.get(r.id)!),
    stage(
      'fanned out → started (dispatcher claimed the intent, Temporal accepted the start)',
      (r) => Number(r.started) - Number(r.dispatched),
    ),
    stage('started → attempt (workflow task and worker slot; the attempt runs inside it)', (r) => Number(r.attempted) - Number(r.started)),
    stage('attempt → receipt (signed HTTP POST)', (r) => Math.max(...receiptsOf(r.id)) - Number(r.attempted)),
  ];
}

/**
 * Runs `phase` against a Temporal dev server of its own, started empty, and stops the server and
 * the API and worker processes the phase started, however it ends.
 */
async function onFreshDevServer<T>(phase: (address: string) => Promise<T>): Promise<T> {
  const port = await freePort();
  const temporal = spawnTemporalDevServer(port, FAIRNESS ? TASK_QUEUE_FAIRNESS_ARGS : []);
  try {
    await waitFor(() => portOpen(port), 'the Temporal dev server', 60_000);
    return await phase(`127.0.0.1:${port}`);
  } finally {
    for (const child of children.splice(0).reverse()) await stopChild(child);
    await stopChild(temporal);
  }
}

async function main(): Promise<void> {
  if (!existsSync(path.join(ROOT, 'dist/worker/main.js')))
    throw new Error('run `npm run build` first: the benchmark runs the compiled API and worker');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const loadBefore = os.loadavg();
  const ticks = cpuTicks();
  const admin = new PgClient({ connectionString: ADMIN_URL });
  await admin.connect();
  const floorReceiver = new Receiver();
  const f = await floor(await floorReceiver.start());
  await floorReceiver.close();
  console.log(f);
  const rounds: Round[] = [];
  try {
    for (let n = 0; n < ROUNDS; n += 1) {
      // Odd rounds run the webhooks first, so neither side always meets the later, drifted host.
      const webhooksFirst = n % 2 === 1;
      const runBaseline = () => {
        console.log(`round ${n + 1}: baseline, ${BASELINE_WORKFLOWS} workflows…`);
        return onFreshDevServer((address) => baseline(address));
      };
      const runWebhooks = () => {
        console.log(`round ${n + 1}: webhooks…`);
        return withDatabase(admin, (url) =>
          withReceiver((receiver, base) => onFreshDevServer((address) => webhooks(url, address, receiver, base))),
        );
      };
      const [b, w] = webhooksFirst
        ? await runWebhooks().then(async (w) => [await runBaseline(), w] as const)
        : await runBaseline().then(async (b) => [b, await runWebhooks()] as const);
      console.log({ round: n + 1, baseline: b.rate, webhooks: w.burst.rate, ratio: w.burst.rate / b.rate });
      rounds.push({ webhooksFirst, baseline: b, webhooks: w });
    }
    writeReport({ floor: f, rounds, loadBefore, loadAfter: os.loadavg(), cpu: cpuShare(ticks, cpuTicks()) });
  } finally {
    await admin.end();
  }
}

/** Runs `phase` on a database of its own (the sellers it seeds are fixed), dropped however it ends. */
async function withDatabase<T>(admin: PgClient, phase: (url: string) => Promise<T>): Promise<T> {
  const dbName = `bench_webhooks_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${dbName}`;
  try {
    return await phase(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  }
}

/** Runs `phase` with a receiver of its own (its receipts are counted per seller from zero). */
async function withReceiver<T>(phase: (receiver: Receiver, base: string) => Promise<T>): Promise<T> {
  const receiver = new Receiver();
  try {
    return await phase(receiver, await receiver.start());
  } finally {
    await receiver.close();
  }
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** The bursts of several rounds as one, for CPU per delivery over all of them. */
function pooled(scenario: string, bursts: Burst[]): Burst {
  const groups = new Map<string, number>();
  for (const b of bursts) for (const [g, t] of b.cpu.groups) groups.set(g, (groups.get(g) ?? 0) + t);
  const sum = (f: (b: Burst) => number) => bursts.reduce((a, b) => a + f(b), 0);
  return {
    scenario,
    events: sum((b) => b.events),
    deliveries: sum((b) => b.deliveries),
    seconds: sum((b) => b.seconds),
    rate: sum((b) => b.deliveries) / sum((b) => b.seconds),
    p50: NaN,
    p99: NaN,
    cpu: { groups, rest: sum((b) => b.cpu.rest) },
  };
}

function writeReport(r: { floor: Latency; rounds: Round[]; loadBefore: number[]; loadAfter: number[]; cpu: string }): void {
  const ratios = r.rounds.map((round) => round.webhooks.burst.rate / round.baseline.rate);
  const pct = (x: number) => `${(100 * x).toFixed(0)} %`;
  const roundRow = (round: Round, n: number) => {
    const [b, w] = [round.baseline, round.webhooks.burst];
    return (
      `| ${n + 1} | ${round.webhooksFirst ? 'webhooks' : 'baseline'} | ${b.rate.toFixed(1)} (${b.deliveries} in ${b.seconds.toFixed(1)} s) | ${b.p50} / ${b.p99} ` +
      `| ${w.rate.toFixed(1)} (${w.deliveries} in ${w.seconds.toFixed(1)} s) | ${w.p50} / ${w.p99} | ${pct(ratios[n]!)} |`
    );
  };
  const lat = (l: Latency) => `| ${l.scenario} | ${l.samples} | ${l.p50} | ${l.p99} | ${l.max} |`;
  const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(' ');
  const phases = r.rounds.map((round) => round.webhooks);
  const stageNames = phases[0]?.stages.map((s) => s.name) ?? [];
  const largest = (process: 'api' | 'worker') =>
    `${Math.max(...phases.map((p) => p.memory[process].now)).toFixed(0)} MiB (peak ${Math.max(...phases.map((p) => p.memory[process].peak)).toFixed(0)} MiB)`;
  const text = [
    '# Webhook benchmark',
    '',
    `Run ${new Date().toISOString()} on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ` +
      `Temporal CLI dev server (in-memory, task-queue fairness ${FAIRNESS ? 'on' : 'off'}), PostgreSQL on 127.0.0.1, receiver on loopback; ` +
      `compiled API and worker processes. ${r.rounds.length} rounds, each a baseline burst and a webhook burst alternating which goes first, ` +
      'every burst on a dev server of its own, started empty, each webhook burst on a database of its own; ' +
      'the baseline starts as many workflows as the burst makes deliveries.',
    '',
    `Load average (1, 5, 15 min) before ${load(r.loadBefore)}, after ${load(r.loadAfter)}; CPU over the run: ${r.cpu}.`,
    '',
    '## Burst throughput',
    '',
    `Baseline: one trivial activity workflow per delivery, ${BASELINE_WORKFLOWS} per round. Webhooks: ${EVENTS} events × ${BURST_ENDPOINTS} endpoints, ` +
      'signed HTTP POST. Rates in deliveries/s; latency commit → receipt in ms, which for a burst includes its own queueing.',
    '',
    '| round | first | baseline deliveries/s | baseline p50 / p99 ms | webhooks deliveries/s | webhooks p50 / p99 ms | webhooks / baseline |',
    '|---:|---|---:|---:|---:|---:|---:|',
    ...r.rounds.map(roundRow),
    '',
    `Webhook rate = **${pct(median(ratios))}** of the baseline's, the median of the rounds (${ratios.map(pct).join(', ')}; target ≥ 80 %).`,
    '',
    ...cpuPerDelivery([
      pooled(
        'baseline: one trivial activity workflow per delivery',
        r.rounds.map((round) => round.baseline),
      ),
      pooled(
        `webhooks: ${BURST_ENDPOINTS} endpoints per event, signed HTTP POST`,
        phases.map((p) => p.burst),
      ),
    ]),
    '',
    '## Single-event latency (commit → receipt, per delivery; the rounds pooled)',
    '',
    '| scenario | deliveries | p50 ms | p99 ms | max ms |',
    '|---|---|---|---|---|',
    lat(r.floor),
    lat(
      latency(
        `idle: single events of ${SELLERS} sellers (1–2 endpoints), one at a time`,
        phases.flatMap((p) => p.idle),
      ),
    ),
    lat(
      latency(
        `other sellers' single events, one every ${PROBE_INTERVAL_MS / 1000} s during the burst`,
        phases.flatMap((p) => p.during),
      ),
    ),
    '',
    'Where the time of the probe events during the burst went (per event, its slowest delivery; stages from the',
    "database's timestamps, so they add up to the commit → receipt time only roughly):",
    '',
    '| stage | events | p50 ms | p99 ms | max ms |',
    '|---|---|---|---|---|',
    ...stageNames.map((name, i) =>
      lat(
        latency(
          name,
          phases.flatMap((p) => p.stages[i]!.values),
        ),
      ),
    ),
    '',
    `Failed delivery attempts (retried): ${phases.reduce((a, p) => a + p.failed, 0)}.`,
    '',
    `Resident memory at the end of a webhook round (the largest): API ${largest('api')}, worker ${largest('worker')}.`,
    '',
    'Reproduce with `npm run build && node -r ts-node/register bench/webhooks/run.ts` (`BENCH_EVENTS` scales the burst, `BENCH_ROUNDS`',
    'the rounds, `BENCH_IDLE_EVENTS`, `BENCH_SELLERS`, `BENCH_PROBE_INTERVAL_MS`; `BENCH_FAIRNESS=0` turns task-queue fairness off).',
    '',
  ].join('\n');
  const out = process.env.BENCH_RESULTS ?? path.join(ROOT, 'bench/results/webhooks.md');
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, text);
  console.log(text);
}

/**
 * CPU time per delivery, by process, over each scenario's bursts: where a webhook delivery costs more than
 * the baseline's bare workflow. The bench process hosts the baseline's worker and, in both
 * bursts, the producer and the receiver.
 */
function cpuPerDelivery(bursts: Burst[]): string[] {
  const groups = [...new Set(bursts.flatMap((b) => [...b.cpu.groups.keys()]))];
  const ms = (ticks: number, b: Burst) => ((ticks * 10) / b.deliveries).toFixed(1);
  return [
    'CPU time per delivery over each burst, in ms (clock ticks of every thread; the bench process runs the producer,',
    "the receiver and the baseline's worker; the rest is the machine's busy time less the named processes: PostgreSQL):",
    '',
    `| scenario | ${groups.join(' | ')} | the rest (PostgreSQL …) | total |`,
    `|---|${groups.map(() => '---:|').join('')}---:|---:|`,
    ...bursts.map((b) => {
      const total = [...b.cpu.groups.values()].reduce((x, y) => x + y, 0) + b.cpu.rest;
      return `| ${b.scenario} | ${groups.map((g) => (b.cpu.groups.has(g) ? ms(b.cpu.groups.get(g)!, b) : '—')).join(' | ')} | ${ms(b.cpu.rest, b)} | ${ms(total, b)} |`;
    }),
  ];
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
