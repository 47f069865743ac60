// What one request of each main operation costs each tier (docs/scaling.md).
// `npm run build && node -r ts-node/register bench/scaling/cost.ts`
//
// Its own database (BENCH_DATABASE_URL, default mts_bench_scaling on the local PostgreSQL) with the
// catalog benchmark's generated catalog (101,108 items, 520,000 listings: bench/catalog/generate.ts)
// and, as deployed, processes of their own: a Temporal CLI dev server, the compiled API and the
// compiled worker. Each operation runs BENCH_SCALING_N times (or fewer for the costly ones) at one
// connection, requests drawn from varied distributions (the Discover workloads of
// bench/catalog/workload.ts; listings, baskets and orders Zipf over the catalog). Around each phase,
// until the work it caused has finished (the start outbox empty, then the worker and Temporal quiet):
//   - CPU time (user + system, /proc/<pid>/stat) of the API, the worker, the Temporal server, and
//     the PostgreSQL backends serving this database (their process titles name it);
//   - PostgreSQL's counters for this database (pg_stat_database): buffer accesses, blocks read from
//     outside its buffer cache, rows written, transactions committed;
//   - the worker's Temporal SDK counters: workflow tasks and activity tasks completed.
// An idle phase of the same length measures the background (the dispatcher's and the Schedules'
// own work), which is taken off each phase pro rata, so a figure is what the requests caused.
// CPU time, unlike latency, hardly moves with other load on the host; the run is still one
// host's: compare figures within one run. Then: the capacity of each tier at a traffic mix
// (TRAFFIC below; BENCH_TRAFFIC_SCALE multiplies it) at 1×, 10× and 100×, which the scaling
// plan in docs/scaling.md is read from. Writes bench/results/scaling.md.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { prng } from '../../test/support/random';
import { generateCatalog } from '../catalog/generate';
import { BENCH } from '../catalog/settings';
import { bulkLookups, listingSearches, searches, zipf, type Draw } from '../catalog/workload';
import {
  busyTicks,
  cpuShare,
  cpuTicks,
  endsWithBench,
  freePort,
  percentile,
  portOpen,
  procStat,
  processCpuTicks,
  rssAtEnd,
  spawnTemporalDevServer,
  stopChild,
  waitFor,
} from '../support';
import API_NODE_FLAGS from '../../src/api-node-flags.json';
import WORKER_NODE_FLAGS from '../../worker/node-flags.json';

const ROOT = path.resolve(__dirname, '../..');
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/mts_bench_scaling';
const DB_NAME = new URL(DATABASE_URL).pathname.slice(1);
/** Requests per cheap operation; the order flow's steps run ORDERS times. */
const N = Number(process.env.BENCH_SCALING_N ?? 2000);
const ORDERS = Number(process.env.BENCH_SCALING_ORDERS ?? 300);
const ADDRESS = { name: 'Bench Buyer', line1: '1 Bench Road', city: 'London', postalCode: 'E1 1AA', country: 'GB' };

/**
 * Requests per second of each operation at "today's" traffic: a planning figure, not a
 * measurement (the service has no production traffic yet). A marketplace the size of the bench
 * catalog at its busy hour: browsing dominates (≈ 50 reads per write), about 1,000 orders an hour.
 * Change it (or BENCH_TRAFFIC_SCALE) and the capacity table follows from the measured costs.
 */
const TRAFFIC: Record<string, number> = {
  'catalog search': 30,
  'listing search (one item)': 20,
  'bulk lookup (200 URNs)': 1,
  'seller creates a listing': 3,
  'buyer adds a basket line': 2,
  'checkout and payment': 0.3,
  'seller ships an order': 0.3,
  'buyer confirms receipt': 0.3,
};
const TRAFFIC_SCALE = Number(process.env.BENCH_TRAFFIC_SCALE ?? 1);

type Tier = 'API' | 'worker' | 'Temporal server' | 'PostgreSQL';
const TIERS: Tier[] = ['API', 'worker', 'Temporal server', 'PostgreSQL'];

interface Snapshot {
  at: number;
  cpu: Record<Tier, number>;
  /** pg_stat_database: blks_hit + blks_read, blks_read, tup_inserted + updated + deleted, xact_commit. */
  db: { buffers: number; reads: number; rowsWritten: number; commits: number };
  sdk: { workflowTasks: number; activityTasks: number };
}

interface Cost {
  operation: string;
  requests: number;
  p50: number;
  p99: number;
  /** Per request: CPU ms by tier, then the database and Temporal counters. */
  cpuMs: Record<Tier, number>;
  buffers: number;
  reads: number;
  rowsWritten: number;
  commits: number;
  workflowTasks: number;
  activityTasks: number;
}

/**
 * CPU ticks (1/100 s) of the PostgreSQL backends whose process title names this database, summed
 * over every backend seen so far. A pool closes idle connections, and an exited backend's
 * counters vanish with it: sampling every 200 ms (`samplePostgres`) keeps each backend's last
 * reading, so at most 200 ms of an exiting backend's work goes uncounted.
 */
const backendTicks = new Map<number, number>();
/** The bench's own connection, whose statistics queries are not the service's work. */
let ownBackend = 0;
function samplePostgres(): void {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d) && Number(d) !== ownBackend)) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      // "postgres: postgres mts_bench_scaling 127.0.0.1(53412) idle"
      if (!cmdline.startsWith('postgres: ') || !cmdline.split(' ').includes(DB_NAME)) continue;
      const stat = procStat(Number(pid));
      if (stat) backendTicks.set(Number(pid), stat.ticks);
    } catch {
      // exited meanwhile: its last reading stays in the map
    }
  }
}
function postgresTicks(): number {
  samplePostgres();
  return [...backendTicks.values()].reduce((a, b) => a + b, 0);
}

/** CPU ticks (1/100 s) one running process has used so far, all threads. */
const ticksOf = (pid: number): number => procStat(pid)?.ticks ?? NaN;

/** Sums the samples of every series of `metric` (e.g. a histogram's `_count`) in a Prometheus text page. */
function metricSum(page: string, metric: string): number {
  let sum = 0;
  for (const line of page.split('\n')) {
    if (line.startsWith(`${metric}{`) || line.startsWith(`${metric} `)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

async function main(): Promise<void> {
  if (!existsSync(path.join(ROOT, 'dist/worker/main.js'))) throw new Error('run `npm run build` first: the API and worker run compiled');
  const startedAt = new Date();
  const load0 = os.loadavg();
  // BENCH_SCALING_REUSE=1 keeps the catalog of an earlier run (its database must exist).
  const generated = process.env.BENCH_SCALING_REUSE
    ? null
    : await generateCatalog(DATABASE_URL, {
        copies: BENCH.copies,
        sellers: BENCH.sellers,
        listings: BENCH.listings,
        popularListings: BENCH.popularListings,
        bulkMarket: true,
      });
  const stats = new Client({ connectionString: DATABASE_URL, application_name: 'bench-stats' });
  await stats.connect();
  const { rows: counted } = await stats.query(
    `SELECT (SELECT count(*) FROM catalog_items)::int AS items, (SELECT count(*) FROM listings)::int AS listings`,
  );
  const catalog = generated ?? (counted[0] as { items: number; listings: number });
  ownBackend = (await stats.query(`SELECT pg_backend_pid() AS pid`)).rows[0].pid;
  const sampler = setInterval(samplePostgres, 200);

  const [temporalPort, apiPort, apiMetricsPort, workerMetricsPort, sdkPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const temporal = spawnTemporalDevServer(temporalPort);
  await waitFor(() => portOpen(temporalPort), 'the Temporal dev server', 60_000);
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL,
    LOG_LEVEL: 'warn',
    SCRYPT_LOG_N: '10',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
    TEMPORAL_PAYLOAD_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    HOST: '127.0.0.1',
    PORT: String(apiPort),
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    METRICS_PORT: String(apiMetricsPort),
    WORKER_METRICS_PORT: String(workerMetricsPort),
    TEMPORAL_SDK_METRICS_PORT: String(sdkPort),
  };
  const spawnNode = (args: string[]) =>
    endsWithBench(spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] }));
  const api = spawnNode([...API_NODE_FLAGS, 'dist/src/main.js']);
  const worker = spawnNode([...WORKER_NODE_FLAGS, 'dist/worker/main.js']);
  const base = `http://127.0.0.1:${apiPort}`;
  await waitFor(async () => (await fetch(`${base}/readyz`).catch(() => null))?.ok === true, 'the API', 120_000);
  await waitFor(async () => (await fetch(`http://127.0.0.1:${sdkPort}/metrics`).catch(() => null))?.ok === true, 'the worker', 120_000);
  const pids = { API: api.pid!, worker: worker.pid! };

  const call = async (method: string, url: string, token: string | null, body?: unknown, expect?: number): Promise<Response> => {
    const res = await fetch(base + url, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    if (expect !== undefined ? res.status !== expect : res.status >= 400) {
      throw new Error(`${method} ${url} → ${res.status}: ${await res.text()}`);
    }
    return res;
  };
  const register = async (name: string) =>
    (await (
      await call('POST', '/auth/register', null, { email: `${name}@bench.test`, username: name, password: 'bench password 123' })
    ).json()) as { user: { id: string }; accessToken: string };

  const snapshot = async (): Promise<Snapshot> => {
    const cpu = processCpuTicks(pids);
    const byGroup = (group: string) => [...cpu.processes.values()].filter((p) => p.group === group).reduce((a, p) => a + p.ticks, 0);
    const { rows } = await stats.query(
      `SELECT blks_hit + blks_read AS buffers, blks_read AS reads, tup_inserted + tup_updated + tup_deleted AS "rowsWritten",
              xact_commit AS commits
         FROM pg_stat_database WHERE datname = $1`,
      [DB_NAME],
    );
    const sdkPage = await (await fetch(`http://127.0.0.1:${sdkPort}/metrics`)).text();
    return {
      at: performance.now(),
      // This run's own dev server only: other Temporal servers on the host are not its work.
      cpu: { API: byGroup('API'), worker: byGroup('worker'), 'Temporal server': ticksOf(temporal.pid!), PostgreSQL: postgresTicks() },
      db: {
        buffers: Number(rows[0].buffers),
        reads: Number(rows[0].reads),
        rowsWritten: Number(rows[0].rowsWritten),
        commits: Number(rows[0].commits),
      },
      sdk: {
        workflowTasks: metricSum(sdkPage, 'temporal_workflow_task_execution_latency_count'),
        activityTasks: metricSum(sdkPage, 'temporal_activity_execution_latency_count'),
      },
    };
  };
  /** Waits until the start outbox is empty and the worker and Temporal have been quiet for a second. */
  const settled = async () => {
    await waitFor(
      async () => (await stats.query(`SELECT count(*)::int AS n FROM workflow_starts WHERE started_at IS NULL`)).rows[0].n === 0,
      'the start outbox',
      120_000,
    );
    let last = processCpuTicks(pids);
    let temporalLast = ticksOf(temporal.pid!);
    for (;;) {
      await new Promise((r) => setTimeout(r, 1000));
      const now = processCpuTicks(pids);
      const workerBusy = now.processes.get(worker.pid!)!.ticks - last.processes.get(worker.pid!)!.ticks > 5;
      const temporalNow = ticksOf(temporal.pid!);
      const temporalBusy = temporalNow - temporalLast > 5;
      last = now;
      temporalLast = temporalNow;
      if (!workerBusy && !temporalBusy) return;
    }
  };

  // Seed, untimed: one real seller with a delivery option (its listings are the ones bought), buyers.
  console.log('seeding accounts');
  const run = randomBytes(3).toString('hex'); // account names of their own, should the catalog be reused
  const seller = await register(`scaleseller${run}`);
  await call('POST', '/seller', seller.accessToken);
  await call('POST', '/seller/delivery-options', seller.accessToken, { name: '2nd class', price: 150, tracked: false, countries: ['GB'] });
  const buyers: Array<{ user: { id: string }; accessToken: string }> = [];
  for (let i = 0; i < ORDERS; i += 1) buyers.push(await register(`scalebuyer${run}x${i}`));
  const urns: string[] = (await stats.query(`SELECT urn FROM catalog_items ORDER BY md5(urn)`)).rows.map((r) => r.urn);
  const names: string[] = (await stats.query(`SELECT name FROM (SELECT DISTINCT name FROM catalog_items) n ORDER BY md5(name)`)).rows.map(
    (r) => r.name,
  );
  const random = prng(46);
  const itemRank = zipf(urns.length, 1.0, random);
  const CONDITIONS = ['MINT', 'NEAR_MINT', 'EXCELLENT', 'GOOD'];
  const newListing = () => ({
    urn: urns[itemRank()],
    condition: CONDITIONS[Math.floor(random() * CONDITIONS.length)],
    language: 'en',
    price: 100 + Math.floor(random() * 5000),
    quantity: 1 + Math.floor(random() * 3),
  });

  const costs: Cost[] = [];
  /**
   * Runs `count` requests one at a time (`run(i)` sends request i and returns when it is answered),
   * waits for what they caused, and records the per-request cost less the idle background.
   */
  const measure = async (operation: string, count: number, run: (i: number) => Promise<void>) => {
    await settled();
    const before = await snapshot();
    const times: number[] = [];
    for (let i = 0; i < count; i += 1) {
      const t = performance.now();
      await run(i);
      times.push(performance.now() - t);
    }
    await settled();
    const after = await snapshot();
    const seconds = (after.at - before.at) / 1000;
    const per = (d: number) => d / count;
    const sorted = times.sort((a, b) => a - b);
    costs.push({
      operation,
      requests: count,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      cpuMs: Object.fromEntries(
        TIERS.map((t) => [t, Math.max(0, per((after.cpu[t] - before.cpu[t] - idle.cpu[t] * seconds) * 10))]),
      ) as Record<Tier, number>,
      buffers: per(after.db.buffers - before.db.buffers),
      reads: per(after.db.reads - before.db.reads),
      rowsWritten: per(after.db.rowsWritten - before.db.rowsWritten),
      commits: per(after.db.commits - before.db.commits),
      // Less the background's pro-rata share, which can tip a phase that caused none below zero.
      workflowTasks: Math.max(0, per(after.sdk.workflowTasks - before.sdk.workflowTasks - idle.sdk.workflowTasks * seconds)),
      activityTasks: Math.max(0, per(after.sdk.activityTasks - before.sdk.activityTasks - idle.sdk.activityTasks * seconds)),
    });
    console.log(`${operation}: ${count} requests in ${seconds.toFixed(1)} s`, costs.at(-1)!.cpuMs);
  };

  // The background per second, from an idle stretch (the dispatcher's polls, Schedules).
  await settled();
  const idle0 = await snapshot();
  await new Promise((r) => setTimeout(r, 20_000));
  const idle1 = await snapshot();
  const idleSeconds = (idle1.at - idle0.at) / 1000;
  const idle = {
    cpu: Object.fromEntries(TIERS.map((t) => [t, (idle1.cpu[t] - idle0.cpu[t]) / idleSeconds])) as Record<Tier, number>,
    sdk: {
      workflowTasks: (idle1.sdk.workflowTasks - idle0.sdk.workflowTasks) / idleSeconds,
      activityTasks: (idle1.sdk.activityTasks - idle0.sdk.activityTasks) / idleSeconds,
    },
  };

  const cpu0 = cpuTicks();
  const machine0 = busyTicks();
  const get = (next: () => Draw) => async () => void (await call('GET', next().path, null)).arrayBuffer();
  const post = (next: () => Draw) => async () => {
    const d = next();
    await (await call('POST', d.path, null, d.body)).arrayBuffer();
  };
  // Discover, as deployed (its answer cache on): the cache's share is part of the cost.
  await measure('catalog search', N, get(searches(names)(1)));
  await measure('listing search (one item)', N, post(listingSearches(urns)(2)));
  await measure('bulk lookup (200 URNs)', Math.ceil(N / 10), post(bulkLookups(urns)(3)));

  // Writes. The listings the orders below buy are the seller's own, created here.
  const listingIds: string[] = [];
  await measure('seller creates a listing', N / 2, async () => {
    const res = await call('POST', '/seller/listings', seller.accessToken, newListing(), 201);
    listingIds.push(((await res.json()) as { id: string }).id);
  });
  const baskets: string[] = [];
  await measure('buyer adds a basket line', ORDERS, async (i) => {
    const token = buyers[i]!.accessToken;
    const basket = (await (await call('GET', '/basket', token)).json()) as { id: string };
    baskets.push(basket.id);
    // A listing of its own per buyer (7 and the listing count are coprime): a listing drawn by
    // popularity would sell out before the last checkout, and a 409 is not the path measured.
    await call('PUT', `/basket/${basket.id}/items/${listingIds[(i * 7) % listingIds.length]}`, token, { quantity: 1 });
  });
  for (let i = 0; i < ORDERS; i += 1) await call('PUT', `/basket/${baskets[i]}/delivery`, buyers[i]!.accessToken, { address: ADDRESS });
  await measure('checkout and payment', ORDERS, async (i) => {
    const { url } = (await (
      await call('POST', `/basket/${baskets[i]}/checkout`, buyers[i]!.accessToken, { successUrl: 'https://shop.example/ok' })
    ).json()) as { url: string };
    const paid = await fetch(base + new URL(url).pathname, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'outcome=success',
    });
    if (paid.status !== 303) throw new Error(`payment → ${paid.status}: ${await paid.text()}`);
  });
  const orders: Array<{ id: string; purchaseId: string; buyerId: string; items: Array<{ id: string; quantity: number }> }> = (
    await stats.query(
      `SELECT o.id, o.purchase_id AS "purchaseId", p.buyer_id AS "buyerId",
              json_agg(json_build_object('id', oi.id, 'quantity', oi.quantity)) AS items
         FROM orders o JOIN purchases p ON p.id = o.purchase_id JOIN order_items oi ON oi.order_id = o.id
        WHERE o.seller_id = $1
        GROUP BY o.id, p.buyer_id`,
      [seller.user.id],
    )
  ).rows;
  const tokenOf = new Map(buyers.map((b) => [b.user.id, b.accessToken]));
  await measure('seller ships an order', orders.length, async (i) => {
    const o = orders[i]!;
    await call(
      'POST',
      `/seller/orders/${o.id}`,
      seller.accessToken,
      { action: 'ship', shipment: { carrier: 'RM', trackingNumber: `RM${o.id.slice(-8)}` }, items: o.items },
      204,
    );
  });
  await measure('buyer confirms receipt', orders.length, async (i) => {
    const o = orders[i]!;
    await call('PUT', `/user/purchases/${o.purchaseId}`, tokenOf.get(o.buyerId)!, { action: 'receive', orderId: o.id }, 200);
  });
  const cpuShares = cpuShare(cpu0, cpuTicks());
  const machineBusyS = (busyTicks() - machine0) / 100;
  const rss = rssAtEnd([
    ['API', api.pid],
    ['worker', worker.pid],
  ]);
  await stopChild(api);
  await stopChild(worker);
  await stopChild(temporal);
  await stats.end();
  clearInterval(sampler);
  writeFileSync(
    path.join(ROOT, 'bench/results/scaling.md'),
    report({ startedAt, load0, cpuShares, machineBusyS, rss, idle: idle.cpu, items: catalog.items, listings: catalog.listings, costs }),
  );
  console.log('wrote bench/results/scaling.md');
}

const fmt = (n: number, digits = 2) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(digits));

function report(r: {
  startedAt: Date;
  load0: number[];
  cpuShares: string;
  machineBusyS: number;
  rss: string;
  idle: Record<Tier, number>;
  items: number;
  listings: number;
  costs: Cost[];
}): string {
  const rows = r.costs.map(
    (c) =>
      `| ${c.operation} | ${c.requests} | ${fmt(c.p50, 1)} / ${fmt(c.p99, 1)} | ${TIERS.map((t) => fmt(c.cpuMs[t])).join(' | ')} | ${fmt(c.buffers, 0)} | ${fmt(c.reads)} | ${fmt(c.rowsWritten, 1)} | ${fmt(c.commits, 1)} | ${fmt(c.workflowTasks, 1)} | ${fmt(c.activityTasks, 1)} |`,
  );
  // Cores each tier needs at the traffic mix and its multiples: Σ rate × CPU ms per request.
  const demand = (scale: number) =>
    Object.fromEntries(
      TIERS.map((t) => [t, r.costs.reduce((sum, c) => sum + (TRAFFIC[c.operation] ?? 0) * TRAFFIC_SCALE * scale * c.cpuMs[t], 0) / 1000]),
    ) as Record<Tier, number>;
  const perSecond = (scale: number, pick: (c: Cost) => number) =>
    r.costs.reduce((sum, c) => sum + (TRAFFIC[c.operation] ?? 0) * TRAFFIC_SCALE * scale * pick(c), 0);
  const capacityRows = [1, 10, 100].map((scale) => {
    const d = demand(scale);
    return `| ${scale} × | ${TIERS.map((t) => fmt(d[t])).join(' | ')} | ${fmt(
      perSecond(scale, (c) => c.buffers),
      0,
    )} | ${fmt(
      perSecond(scale, (c) => c.rowsWritten),
      0,
    )} | ${fmt(
      perSecond(scale, (c) => c.commits),
      0,
    )} | ${fmt(
      perSecond(scale, (c) => c.workflowTasks + c.activityTasks),
      1,
    )} |`;
  });
  return `# Per-request cost of each tier

Run ${r.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${os.cpus().length} CPU(s), shared with other work; load average (1/5/15 min) ${r.load0.map((l) => l.toFixed(1)).join(' / ')} before; CPU time during the measurements: ${r.cpuShares}.
\`npm run build && node -r ts-node/register bench/scaling/cost.ts\`: the catalog benchmark's generated catalog (${r.items.toLocaleString('en')} items, ${r.listings.toLocaleString('en')} listings), served by the compiled API and worker and a Temporal CLI dev server, each a process of its own, on one PostgreSQL. Each operation ran one request at a time, requests drawn from varied distributions (bench/scaling/cost.ts); each phase lasted until the work it caused had finished (start outbox empty, worker and Temporal quiet), and the idle background measured over 20 s beforehand (API ${fmt(r.idle.API * 10)}, worker ${fmt(r.idle.worker * 10)}, Temporal ${fmt(r.idle['Temporal server'] * 10)}, PostgreSQL ${fmt(r.idle.PostgreSQL * 10)} CPU ms per second) was taken off pro rata.
CPU time is counted per process (/proc/<pid>/stat; PostgreSQL: the backends serving this database), so other work on the host hardly moves it, unlike the latencies. ${r.rss}

## Per request

CPU in milliseconds per request; buffers: shared-buffer accesses (pg_stat_database blks_hit + blks_read); reads: of those, blocks PostgreSQL had to fetch from the OS; rows: inserted + updated + deleted; commits: transactions; Temporal tasks: workflow and activity tasks the worker completed (the worker's SDK counters). Latency at one connection, p50 / p99 ms.

| operation | requests | latency ms | API CPU ms | worker CPU ms | Temporal server CPU ms | PostgreSQL CPU ms | buffers | reads | rows written | commits | workflow tasks | activity tasks |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}

## At a traffic mix and its multiples

The mix (requests per second${TRAFFIC_SCALE !== 1 ? `, × ${TRAFFIC_SCALE}` : ''}): ${Object.entries(TRAFFIC)
    .map(([op, rate]) => `${op} ${rate}`)
    .join(
      ', ',
    )}. It is a planning figure, not a measurement (bench/scaling/cost.ts, \`TRAFFIC\`). Cores are CPU seconds per second of each tier, from the costs above; the database columns are per second.

| traffic | API cores | worker cores | Temporal server cores | PostgreSQL cores | buffer accesses /s | rows written /s | commits /s | Temporal tasks /s |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
${capacityRows.join('\n')}
`;
}

// Ended by a signal, still stop the children (endsWithBench stops them on 'exit').
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(1));

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
