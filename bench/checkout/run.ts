// Checkout throughput benchmark. `node -r ts-node/register bench/checkout/run.ts`
// The whole path for real: its own database (BENCH_DATABASE_URL, default mts_bench_checkout on
// the local PostgreSQL), a Temporal CLI dev server (.venv/bin/temporal, or TEMPORAL_CLI_PATH),
// the real worker and the real API on a local port, all in this process. 20 concurrent buyers
// (BENCH_BUYERS) in two phases of BENCH_DURATION seconds, baskets of 1–4 lines drawn Zipf-like
// over BENCH_LISTINGS listings (default 2,000 over 500 items and 5 sellers) with varied
// quantities. Sessions: baskets filled beforehand (BENCH_PREPARED_BASKETS, one buyer each, untimed)
// are checked out (session + holds) and paid (commit). Cycles: each loop
// fills a fresh basket, PUTs the delivery, checks out and pays. A fixed seed draws the same baskets
// on every run. Each phase's rate is also given "sustained": counted until the workflow starts it
// requested were all made and the machine was quiet again (the started workflows' first tasks run).
// In the same run, at the same concurrency and through the same process: the machine floor
// (a bare node:http handler answering fixed bytes) and a baseline (per request one transaction
// locking a listing drawn from the same distribution and requesting one trivial workflow start,
// a review window, through the start outbox as the services do), measured before and after
// checkout (BENCH_BASELINE_DURATION seconds each). Reports sessions created and committed per
// second with p50/p99 latencies and as a share of the baseline's sustained rate, how long each workflow start
// waited in the start outbox meanwhile (the worker process's dispatcher runs beside the worker,
// as in production), and the process's RSS at the end; writes bench/results/checkout.md and
// drops the database unless BENCH_KEEP=1. The API's and the worker's /metrics (with the Temporal
// SDK's own) are served on loopback as in production and scraped halfway through the checkout
// phase; their main series go to bench/results/checkout-metrics.md.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime } from '@temporalio/worker';
import { prng } from '../../test/support/random';
import { zipf } from '../catalog/workload';
import {
  IN_PROCESS,
  adminQuery,
  busyTicks,
  cpuByProcess,
  cpuShare,
  cpuTicks,
  freePort,
  percentile,
  processCpuTicks,
  rssAtEnd,
} from '../support';
import { newId } from '../../src/ids';
import { reviewWindowStart } from '../../src/modules/reviews';
import { requestWorkflowStart } from '../../src/services/workflow-starts';
import { createServices } from '../../src/composition';
import { loadConfig } from '../../src/config';
import { connectAndMigrate } from '../../src/db/data-source';
import { createApp } from '../../src/http/app';
import { temporalDataConverter } from '../../src/temporal/data-converter';
import { createLogger } from '../../src/logger';
import { createApiMetrics, registerDbPoolMetrics } from '../../src/observability/api-metrics';
import { startMetricsServer } from '../../src/observability/metrics-server';
import { createWorkerMetrics, sdkMetrics } from '../../src/observability/worker-metrics';
import { ensureCheckoutExpirySchedule } from '../../src/temporal/checkout-expiry-schedule';
import { createWorker } from '../../worker/create-worker';
import { createStartDispatcher } from '../../worker/start-dispatcher';
import { temporalClient } from '../../src/temporal/client';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/mts_bench_checkout';
const BUYERS = Number(process.env.BENCH_BUYERS ?? 20);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 20);
/** Baskets filled before the sessions phase: more than it can pay for in DURATION_S. */
const PREPARED = Number(process.env.BENCH_PREPARED_BASKETS ?? 120 * DURATION_S);
const BASELINE_S = Number(process.env.BENCH_BASELINE_DURATION ?? 8);
/** Below this much busy CPU (cores) the machine counts as quiet: a phase's work has been run. */
const QUIET_CORES = 0.2;
const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 2000);
const ITEMS = Math.max(1, Math.round(LISTINGS / 4));
const SELLERS = 5;
const TEMPORAL_CLI = process.env.TEMPORAL_CLI_PATH ?? path.resolve(__dirname, '../../.venv/bin/temporal');
const ADDRESS = { name: 'Bench Buyer', line1: '1 Bench Road', line2: '', city: 'London', state: '', postal_code: 'E1 1AA', country: 'GB' };

const admin = (sql: string) => adminQuery(DATABASE_URL, sql);

const dbName = () => new URL(DATABASE_URL).pathname.slice(1);

async function call(base: string, method: string, url: string, token: string | null, body?: unknown): Promise<Response> {
  const res = await fetch(base + url, {
    method,
    redirect: 'manual',
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (res.status >= 400) throw new Error(`${method} ${url} → ${res.status} ${await res.text()}`);
  return res;
}

/** Series shown from each scrape: request latency and load on the API, starts, outboxes, deliveries and Temporal polling on the worker. */
const API_SERIES = /^(http_request_duration_seconds_(count|sum)\{[^}]*route="\/(basket|pay)|http_requests_in_flight|db_pool_)/;
const WORKER_SERIES =
  /^(workflow_starts_(total|eager_total)|outbox_|webhook_delivery_attempts_total|temporal_(workflow_completed|activity_execution_latency_count|workflow_task_schedule_to_start_latency_count|num_pollers|worker_task_slots_available))/;

/** The lines of a Prometheus text scrape whose series match, with their HELP line once per family. */
function metricsExcerpt(scrape: string, series: RegExp): string {
  const lines = scrape.split('\n');
  const out: string[] = [];
  for (const line of lines) {
    if (!line.startsWith('#') && series.test(line)) {
      const family = line.split(/[{ ]/)[0]!.replace(/_(count|sum|bucket|total)$/, '');
      const help = lines.find((l) => l.startsWith(`# HELP ${family}`));
      if (help && !out.includes(help)) out.push(help);
      out.push(line);
    }
  }
  return out.join('\n');
}

async function main(): Promise<void> {
  await admin(`DROP DATABASE IF EXISTS ${dbName()} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${dbName()}`);
  const db = await connectAndMigrate({ url: DATABASE_URL, poolSize: 20 });
  // Production settings (no response validation), with a throw-away payload key; the client
  // encrypts payloads like the worker decrypts them.
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL,
    LOG_LEVEL: 'silent',
    SCRYPT_LOG_N: '10',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
    TEMPORAL_PAYLOAD_KEYS: `bench:${randomBytes(32).toString('base64')}`,
  });
  // The SDK's Prometheus exporter, as worker/main.ts installs it (before any connection exists).
  const sdkPort = await freePort();
  Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${sdkPort}` } } } });
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: TEMPORAL_CLI }, namespace: 'default', extraArgs: ['--log-level', 'error'] },
    client: { dataConverter: temporalDataConverter(config.temporal) },
  });
  const apiMetrics = createApiMetrics();
  registerDbPoolMetrics(apiMetrics.registry, db, 'api');
  const workerMetrics = createWorkerMetrics(db);
  const metricsServers = [
    await startMetricsServer(apiMetrics.registry, { host: '127.0.0.1', port: 0 }),
    await startMetricsServer(workerMetrics.registry, { host: '127.0.0.1', port: 0 }, [sdkMetrics(sdkPort)]),
  ];
  const app = createApp(createServices(config, db, env.client), config, createLogger('error', 'bench'), apiMetrics); // errors only: a 5xx's cause shows
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const worker = await createWorker({ config, db, connection: env.nativeConnection, metrics: workerMetrics });
  const running = worker.run();
  // On the worker's connection, as worker/main.ts runs it: without a backlog, starts are eager.
  const dispatcherClient = temporalClient(env.nativeConnection, config.temporal);
  const dispatcher = createStartDispatcher(config, db, dispatcherClient, createLogger('silent', 'start-dispatcher'), workerMetrics);
  dispatcher.start();
  // The hold expiry sweep, as worker/main.ts keeps its Schedule: it runs through the whole bench.
  await ensureCheckoutExpirySchedule(dispatcherClient, { taskQueue: config.temporal.taskQueue, everyMs: config.checkout.expirySweepMs });

  // Seed: SELLERS sellers with a GB delivery option each; ITEMS items with four listings each,
  // spread over the sellers; deep stock, so a popular listing is contended but never sold out.
  const register = async (name: string) =>
    (await (
      await call(base, 'POST', '/auth/register', null, { email: `${name}@bench.test`, username: name, password: 'bench password 123' })
    ).json()) as {
      user: { id: string };
      accessToken: string;
    };
  const sellers = [];
  for (let i = 0; i < SELLERS; i += 1) {
    const seller = await register(`benchseller${i}`);
    await call(base, 'POST', '/seller', seller.accessToken);
    await call(base, 'POST', '/seller/delivery-options', seller.accessToken, {
      name: '2nd class',
      price: 150 + 10 * i,
      tracked: false,
      countries: ['GB'],
    });
    sellers.push(seller.user.id);
  }
  await db.query(`INSERT INTO catalog_games (urn, name) VALUES ('pokemon', 'Pokémon')`);
  await db.query(`INSERT INTO catalog_series (urn, game_urn, name) VALUES ('pokemon/base', 'pokemon', 'Base')`);
  await db.query(
    `INSERT INTO catalog_sets (urn, series_urn, game_urn, name) VALUES ('pokemon/base/bs', 'pokemon/base', 'pokemon', 'Base Set')`,
  );
  await db.query(
    `INSERT INTO catalog_items (urn, slug, game_urn, series_urn, set_urn, title, name)
     SELECT 'pokemon/base/bs/' || i, 'card-' || i, 'pokemon', 'pokemon/base', 'pokemon/base/bs', 'Card ' || i, 'Card ' || i
       FROM generate_series(0, $1::int - 1) i`,
    [ITEMS],
  );
  // Popularity rank k is listing k (shuffled over items and sellers by the hash below).
  const listingIds: string[] = (
    await db.query(
      `INSERT INTO listings (id, seller_id, item_urn, condition, language, price, quantity, valid)
       SELECT gen_random_uuid(), ($2::uuid[])[1 + (k * 7) % cardinality($2::uuid[])], 'pokemon/base/bs/' || (k * 37) % $3,
              (ARRAY['MINT','NEAR_MINT','EXCELLENT','GOOD'])[1 + k % 4], 'en', 100 + (k * 7919) % 20000, 1000000, true
         FROM generate_series(0, $1::int - 1) k
       RETURNING id`,
      [LISTINGS, sellers, ITEMS],
    )
  ).map((r: { id: string }) => r.id);
  const buyers = await Promise.all(Array.from({ length: BUYERS }, (_, i) => register(`benchbuyer${i}`)));

  // The same draws for every run: 1–4 distinct lines (P .4 .3 .2 .1), listings Zipf(1.0) by
  // rank, quantity 1 (70 %), 2 (20 %) or 3 (10 %).
  const random = prng(20261126);
  const rank = zipf(LISTINGS, 1.0, random);
  const basketOf = (): Array<{ listingId: string; quantity: number }> => {
    const x = random();
    const size = x < 0.4 ? 1 : x < 0.7 ? 2 : x < 0.9 ? 3 : 4;
    const picked = new Set<number>();
    while (picked.size < size) picked.add(rank());
    return [...picked].map((k) => {
      const q = random();
      return { listingId: listingIds[k]!, quantity: q < 0.7 ? 1 : q < 0.9 ? 2 : 3 };
    });
  };

  // The floor and the baseline, served by this process beside the API.
  const floorBody = Buffer.alloc(600, 'x');
  const side: Server = createServer((req, res) => {
    if (req.url === '/floor') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': floorBody.length });
      res.end(floorBody);
      return;
    }
    // One transaction: lock a listing drawn like a basket line and request one trivial workflow
    // start (a review window: one workflow task and a timer) through the start outbox.
    const listingId = listingIds[rank()]!;
    db.transaction(async (tx) => {
      await tx.query(`SELECT quantity FROM listings WHERE id = $1 FOR UPDATE`, [listingId]);
      await requestWorkflowStart(tx, reviewWindowStart(newId(), new Date(), 86_400));
    }).then(
      () => res.writeHead(201).end('{}'),
      (err: unknown) => res.writeHead(500).end(String(err)),
    );
  });
  const sideBase: string = await new Promise((resolve) => {
    side.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(side.address() as { port: number }).port}`));
  });
  /** BUYERS closed loops running `step` until `seconds` have passed or `step` says there is no more work. */
  const loops = async (seconds: number, step: (buyer: number) => Promise<boolean>) => {
    const deadline = Date.now() + seconds * 1000;
    const t0 = Date.now();
    await Promise.all(
      Array.from({ length: BUYERS }, async (_, buyer) => {
        while (Date.now() < deadline && (await step(buyer)));
      }),
    );
    return (Date.now() - t0) / 1000;
  };

  /** BUYERS closed loops of one request for `seconds`: requests per second and latencies. */
  const closedLoop = async (seconds: number, method: string, url: string) => {
    const ms: number[] = [];
    const measured = await loops(seconds, async () => {
      const t = performance.now();
      const res = await fetch(sideBase + url, { method });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`${method} ${url} → ${res.status}`);
      ms.push(performance.now() - t);
      return true;
    });
    ms.sort((x, y) => x - y);
    return { n: ms.length, seconds: measured, rps: ms.length / measured, p50: percentile(ms, 50), p99: percentile(ms, 99) };
  };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 2000));
  /**
   * Until every requested start has been started and then the machine has gone quiet (or 120 s
   * have passed); returns the seconds it took. A phase's work is done when its workflows have
   * run what their starts set off, not when its requests are answered: the start outbox lets a
   * request return before Temporal has the start, Temporal accepts a start before the worker has
   * run its first task, and a backlog left behind would be work the phase did not pay for (and
   * the next phase would).
   */
  /** Each drain: seconds until the phase's starts were made, and until the machine was quiet (if it was). */
  const drains: Array<{ phase: string; startsMade: number; seconds: number; quiet: boolean }> = [];
  const startsMadeAfter = (phase: string) => drains.find((d) => d.phase === phase)!.startsMade;
  const drain = async (phase: string): Promise<number> => {
    const t0 = Date.now();
    const drainDeadline = t0 + 120_000;
    while (Date.now() < drainDeadline) {
      const [{ waiting }] = await db.query(`SELECT count(*)::int AS waiting FROM workflow_starts WHERE started_at IS NULL`);
      if (waiting === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const startsMade = (Date.now() - t0) / 1000;
    let quiet = false;
    while (!quiet && Date.now() < drainDeadline) {
      const before = busyTicks();
      await new Promise((resolve) => setTimeout(resolve, 500));
      quiet = (busyTicks() - before) / 100 / 0.5 < QUIET_CORES;
    }
    const seconds = (Date.now() - t0) / 1000;
    drains.push({ phase, startsMade, seconds, quiet });
    return seconds;
  };
  /** Per second, counted until the phase's drain ended (its starts made, then the machine quiet). */
  const sustained = (n: number, seconds: number, drained: number) => n / (seconds + drained);

  /** Fills the buyer's open basket as a buyer would: the basket, 1–4 drawn lines, the delivery address. */
  const fillBasket = async (token: string) => {
    const basket = (await (await call(base, 'GET', '/basket', token)).json()) as { id: string };
    const wanted = basketOf();
    for (const line of wanted) {
      await call(base, 'PUT', `/basket/${basket.id}/items/${line.listingId}`, token, { quantity: line.quantity });
    }
    await call(base, 'PUT', `/basket/${basket.id}/delivery`, token, { address: ADDRESS });
    return { token, basketId: basket.id, lines: wanted.length };
  };
  /** POST checkout, then the payment page's success (303); appends each latency. */
  const checkoutAndPay = async (token: string, basketId: string, checkoutMs: number[], payMs: number[]) => {
    let t = performance.now();
    const { url } = (await (
      await call(base, 'POST', `/basket/${basketId}/checkout`, token, { successUrl: 'https://shop.example/ok' })
    ).json()) as { url: string };
    checkoutMs.push(performance.now() - t);
    t = performance.now();
    const paid = await fetch(base + new URL(url).pathname, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'outcome=success',
    });
    if (paid.status !== 303) throw new Error(`payment → ${paid.status}: ${await paid.text()}`);
    payMs.push(performance.now() - t);
  };
  // Untimed: one buyer per session of the sessions phase (a buyer has one open basket), each
  // basket filled beforehand, so that phase measures what the issue counts: sessions created
  // and paid.
  const prepared: Array<Awaited<ReturnType<typeof fillBasket>>> = [];
  let registered = 0;
  await loops(3600, async () => {
    if (registered >= PREPARED) return false;
    prepared.push(await fillBasket((await register(`benchpayer${registered++}`)).accessToken));
    return true;
  });
  await drain('seeding');

  const loadBefore = os.loadavg();
  const ticks = cpuTicks();
  await closedLoop(2, 'GET', '/floor'); // warm-up
  const floor = await closedLoop(Math.min(5, BASELINE_S), 'GET', '/floor');
  await closedLoop(2, 'POST', '/baseline'); // warm-up
  await drain('baseline warm-up'); // its starts' work is not the measured baseline's
  let cpuBefore = processCpuTicks();
  const baselineBefore = await closedLoop(BASELINE_S, 'POST', '/baseline');
  const baselineBeforeDrained = await drain('baseline before checkout');
  const baselineCpu = cpuByProcess(cpuBefore, processCpuTicks(), baselineBefore.seconds + baselineBeforeDrained);
  await settle();

  // Sessions: checkout and payment of the prepared baskets.
  const sessionCheckoutMs: number[] = [];
  const sessionPayMs: number[] = [];
  let next = 0;
  cpuBefore = processCpuTicks();
  const sessionsSeconds = await loops(DURATION_S, async () => {
    const basket = prepared[next++];
    if (!basket) return false;
    await checkoutAndPay(basket.token, basket.basketId, sessionCheckoutMs, sessionPayMs);
    return true;
  });
  const sessionsDrained = await drain('sessions');
  const sessionsCpu = cpuByProcess(cpuBefore, processCpuTicks(), sessionsSeconds + sessionsDrained);
  await settle();

  // Whole cycles: fill a basket, check out, pay.
  const checkoutMs: number[] = [];
  const payMs: number[] = [];
  const cycleMs: number[] = [];
  const lines: number[] = [];
  const scraped = new Promise<string[]>((resolve) =>
    setTimeout(() => resolve(Promise.all(metricsServers.map(async (m) => (await fetch(m.url)).text()))), (DURATION_S * 1000) / 2),
  );
  cpuBefore = processCpuTicks();
  const elapsed = await loops(DURATION_S, async (i) => {
    const cycle = performance.now();
    const basket = await fillBasket(buyers[i]!.accessToken);
    await checkoutAndPay(basket.token, basket.basketId, checkoutMs, payMs);
    cycleMs.push(performance.now() - cycle);
    lines.push(basket.lines);
    return true;
  });
  const cyclesDrained = await drain('whole cycles');
  const cyclesCpu = cpuByProcess(cpuBefore, processCpuTicks(), elapsed + cyclesDrained);
  await settle();
  const baselineAfter = await closedLoop(BASELINE_S, 'POST', '/baseline');
  const cpu = cpuShare(ticks, cpuTicks());
  const load = os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  const baselineAfterDrained = await drain('baseline after checkout');
  const rss = rssAtEnd([[IN_PROCESS, 'self']], 'also the floor and baseline handlers');

  // created_at is the requesting transaction's time (now()), so the lag includes the rest of
  // that transaction: an upper bound on commit → start.
  const lags: Array<{ type: string; n: number; p50: number; p99: number; max: number; waiting: number }> = await db.query(
    `SELECT workflow_type || CASE WHEN request_key = '' THEN '' ELSE ' (signal-with-start)' END AS type,
            count(*) FILTER (WHERE started_at IS NOT NULL)::int AS n,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - created_at) * 1000) AS p50,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - created_at) * 1000) AS p99,
            max(extract(epoch FROM started_at - created_at) * 1000) AS max,
            count(*) FILTER (WHERE started_at IS NULL)::int AS waiting
       FROM workflow_starts GROUP BY 1 ORDER BY 1`,
  );

  const [{ purchases }] = await db.query(`SELECT count(*)::int AS purchases FROM purchases`);
  const [{ negative }] = await db.query(`SELECT count(*)::int AS negative FROM listings WHERE quantity < 0 OR reserved <> 0`);
  const row = (name: string, xs: number[], seconds: number, drained: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return `| ${name} | ${xs.length} | ${(xs.length / seconds).toFixed(1)} | ${sustained(xs.length, seconds, drained).toFixed(1)} | ${percentile(s, 50).toFixed(1)} | ${percentile(s, 99).toFixed(1)} |`;
  };
  const baselineRate =
    (sustained(baselineBefore.n, baselineBefore.seconds, baselineBeforeDrained) +
      sustained(baselineAfter.n, baselineAfter.seconds, baselineAfterDrained)) /
    2;
  const share = (n: number, seconds: number, drained: number) => `${((100 * sustained(n, seconds, drained)) / baselineRate).toFixed(0)} %`;
  const sessionsShare = share(sessionPayMs.length, sessionsSeconds, sessionsDrained);
  // The same baseline counted only until its starts were made, as this bench did before it waited for a quiet machine.
  const baselineStartsMadeRate =
    (sustained(baselineBefore.n, baselineBefore.seconds, startsMadeAfter('baseline before checkout')) +
      sustained(baselineAfter.n, baselineAfter.seconds, startsMadeAfter('baseline after checkout'))) /
    2;
  const side1 = (name: string, r: Awaited<ReturnType<typeof closedLoop>>, drained: number | null) =>
    `| ${name} | ${r.n} | ${r.rps.toFixed(1)} | ${drained === null ? '—' : sustained(r.n, r.seconds, drained).toFixed(1)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} |`;
  const sizes = [1, 2, 3, 4].map((k) => `${k}: ${lines.filter((n) => n === k).length}`).join(', ');
  const report = `# Checkout throughput

\`node -r ts-node/register bench/checkout/run.ts\` — ${BUYERS} concurrent buyers, ${DURATION_S} s per phase, against the real
API, worker, PostgreSQL and a Temporal CLI dev server, all in one process on this machine
(${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${os.cpus().length} cores).
Load average (1/5/15 min) ${loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ${load} after; CPU time during the
measurements: ${cpu}.

Baskets hold 1–4 lines drawn Zipf(1.0) over ${LISTINGS} listings of ${ITEMS} items from ${SELLERS} sellers, quantity 1/2/3 at
70/20/10 %. "Answered" counts requests per second of the phase; "sustained" counts until every workflow start the
phase requested was made and then the machine was quiet (under ${QUIET_CORES} cores busy over half a second): the start
outbox lets a request return before Temporal has the start, Temporal accepts a start before the worker has run the
workflow's first task, and a backlog left behind is work not yet paid for, which the next phase would pay.

## Sessions created and paid

${prepared.length} baskets filled before the clock (untimed), one buyer each; each loop takes the next: POST checkout
(session and holds, no workflow start), then the payment (303: purchase, orders, ledger, invoice, events).
Measured ${sessionsSeconds.toFixed(1)} s, starts made and the machine quiet ${sessionsDrained.toFixed(1)} s later. CPU meanwhile: ${sessionsCpu}.

| step | count | answered /s | sustained /s | p50 ms | p99 ms |
|---|---|---|---|---|---|
${row('checkout sessions created (POST /basket/{id}/checkout)', sessionCheckoutMs, sessionsSeconds, sessionsDrained)}
${row('payments committed (POST /pay/{id})', sessionPayMs, sessionsSeconds, sessionsDrained)}

## Whole cycles

Each loop: GET /basket, PUT each line, PUT the delivery address, POST checkout, POST the payment (baskets by size
${sizes}). Measured ${elapsed.toFixed(1)} s, starts made and the machine quiet ${cyclesDrained.toFixed(1)} s later. CPU meanwhile: ${cyclesCpu}.

| step | count | answered /s | sustained /s | p50 ms | p99 ms |
|---|---|---|---|---|---|
${row('checkout sessions created (POST /basket/{id}/checkout)', checkoutMs, elapsed, cyclesDrained)}
${row('payments committed (POST /pay/{id})', payMs, elapsed, cyclesDrained)}
${row('whole cycle (basket fill + checkout + commit)', cycleMs, elapsed, cyclesDrained)}

## Floor and baseline

Same run, same ${BUYERS} concurrent closed loops, same process (a bare \`node:http\` server beside the API):

| side | requests | answered /s | sustained /s | p50 ms | p99 ms |
|---|---|---|---|---|---|
${side1('machine floor: GET of 600 fixed bytes, no work', floor, null)}
${side1(`baseline before checkout: one transaction (lock a Zipf-drawn listing) + one trivial workflow start through the start outbox`, baselineBefore, baselineBeforeDrained)}
${side1('baseline after checkout (the same)', baselineAfter, baselineAfterDrained)}

CPU during the first baseline and its drain: ${baselineCpu}.

Seconds after each phase until its workflow starts were all made, and until the machine was quiet:

| phase | starts made | machine quiet |
|---|---|---|
${drains.map((d) => `| ${d.phase} | ${d.startsMade.toFixed(1)} | ${d.quiet ? d.seconds.toFixed(1) : `not within ${d.seconds.toFixed(0)}`} |`).join('\n')}

**Sessions created and paid per second = ${sessionsShare} of the baseline's** (sustained rates; the baseline's is the mean of
before and after, ${baselineRate.toFixed(1)}/s). Whole cycles: ${share(payMs.length, elapsed, cyclesDrained)}. A session is two requests, two
transactions (the payment's writes the purchase, its orders and items, stock, ledger, invoice and events) and no
workflow start: unpaid holds are released by the \`checkout-expiry\` Schedule's sweep, which ran every
${config.checkout.expirySweepMs / 1000} s throughout (docs/checkout-orders.md, "Hold expiry"); a cycle adds ${(2 + lines.reduce((a, b) => a + b, 0) / Math.max(1, lines.length)).toFixed(1)} basket requests on average. The baseline is one request, one
transaction and one start.

Counted only until its starts were made, not until the machine was quiet, the baseline sustains
${baselineStartsMadeRate.toFixed(1)}/s, and sessions are ${((100 * sustained(sessionPayMs.length, sessionsSeconds, sessionsDrained)) / baselineStartsMadeRate).toFixed(0)} % of that. This bench reported that figure until
2026-11-27; it leaves the Temporal server and the worker running the started workflows' first tasks for a
minute or more after the phase, which the next phase then paid for.

Purchases in the database afterwards: ${purchases}. Listings with negative stock or leftover holds: ${negative}.
${rss}

Workflow starts requested during the run, from the requesting transaction to Temporal accepting
the start (through the start outbox and its dispatcher); reviewWindowWorkflow is the baseline's:

| start | started | p50 ms | p99 ms | max ms | still waiting |
|---|---|---|---|---|---|
${lags.map((l) => `| ${l.type} | ${l.n} | ${Number(l.p50).toFixed(1)} | ${Number(l.p99).toFixed(1)} | ${Number(l.max).toFixed(1)} | ${l.waiting} |`).join('\n')}
`;
  writeFileSync(path.join(__dirname, '../results/checkout.md'), report);
  process.stdout.write(report);
  const [apiScrape, workerScrape] = await scraped;
  writeFileSync(
    path.join(__dirname, '../results/checkout-metrics.md'),
    `# /metrics during the checkout benchmark

Scraped ${(DURATION_S / 2).toFixed(0)} s into the checkout phase of the run in checkout.md (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC),
from the API's and the worker's metrics listeners (the worker's includes the Temporal SDK's exporter),
as \`curl http://127.0.0.1:9464/metrics\` and \`curl http://127.0.0.1:9465/metrics\` read them from \`npm start\`.
The series are documented in docs/operations.md; shown: the main ones, not the whole scrape.

## API

\`\`\`
${metricsExcerpt(apiScrape!, API_SERIES)}
\`\`\`

## Worker

\`\`\`
${metricsExcerpt(workerScrape!, WORKER_SERIES)}
\`\`\`
`,
  );
  await Promise.all(metricsServers.map((m) => m.close()));

  server.close();
  side.close();
  await dispatcher.stop();
  worker.shutdown();
  await running;
  await db.destroy();
  await env.teardown();
  if (process.env.BENCH_KEEP !== '1') await admin(`DROP DATABASE IF EXISTS ${dbName()} WITH (FORCE)`);
}

main()
  .then(() => process.exit(0))
  .catch((err) => {
    console.error(err);
    process.exit(1);
  });
