// Resident memory of the API and the worker, run from source with ts-node (`npm run api` /
// `npm run worker`) and compiled from dist/ (`node dist/src/main.js` / `node dist/worker/main.js`),
// idle and under the catalog benchmark's three varied workloads. Needs `npm run build` and the catalog
// benchmark database (bench/catalog/generate.ts). `node -r ts-node/register bench/memory/run.ts`;
// writes the run to bench/results/memory.md. Each variant gets its own processes and Temporal dev server.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { runLoad } from '../load';
import { endsWithBench, freePort, portOpen, rss, rssAtEnd, spawnTemporalDevServer, stopChild } from '../support';
import { BENCH, benchDatabaseUrl } from '../catalog/settings';
import API_NODE_FLAGS from '../../src/api-node-flags.json';
import WORKER_NODE_FLAGS from '../../worker/node-flags.json';
import { bulkLookups, cycle, listingSearches, searches, take } from '../catalog/workload';

const ROOT = path.resolve(__dirname, '../..');
const RESULTS = path.join(ROOT, 'bench/results/memory.md');
const SECONDS = Number(process.env.MEMORY_BENCH_SECONDS ?? 10);
/** Time for start-up garbage (migrations check, bundling, JIT) to settle before "idle" is read. */
const IDLE_SETTLE_MS = 10_000;

const VARIANTS = {
  'ts-node': { api: [...API_NODE_FLAGS, '-r', 'ts-node/register', 'src/main.ts'], worker: ['-r', 'ts-node/register', 'worker/main.ts'] },
  compiled: { api: [...API_NODE_FLAGS, 'dist/src/main.js'], worker: [...WORKER_NODE_FLAGS, 'dist/worker/main.js'] },
};
type Variant = keyof typeof VARIANTS;

async function waitFor(probe: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 300; i += 1) {
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not come up`);
}

/**
 * The catalog benchmark's varied workloads (bench/catalog/workload.ts), drawn before the clock
 * starts: the caches fill as real traffic fills them, which one repeated body would not show.
 */
async function scenarios() {
  const pg = new Client({ connectionString: benchDatabaseUrl() });
  await pg.connect();
  // Popularity ranks as the catalog benchmark draws them.
  const urns: string[] = (await pg.query(`SELECT urn FROM catalog_items ORDER BY md5(urn)`)).rows.map((r) => r.urn);
  const names: string[] = (await pg.query(`SELECT name FROM (SELECT DISTINCT name FROM catalog_items) n ORDER BY md5(name)`)).rows.map(
    (r) => r.name,
  );
  await pg.end();
  return [
    { method: 'POST' as const, path: '/search/lookup/bulk', next: cycle(take(bulkLookups(urns)(1), 15_000)) },
    { method: 'GET' as const, path: '/search', next: cycle(take(searches(names)(2), 60_000)) },
    { method: 'POST' as const, path: '/listings/item', next: cycle(take(listingSearches(urns)(3), 60_000)) },
  ];
}

interface Figures {
  variant: Variant;
  apiIdle: number;
  apiLoad: number;
  apiPeak: number;
  workerIdle: number;
  workerLoad: number;
  workerPeak: number;
  rps: number;
  errors: number;
  load: string;
  /** "RSS at end: …", read just before the processes are stopped. */
  end: string;
}

async function measure(variant: Variant): Promise<Figures> {
  const [temporalPort, apiPort] = await Promise.all([freePort(), freePort()]);
  const temporal = spawnTemporalDevServer(temporalPort);
  const children: ChildProcess[] = [temporal];
  try {
    await waitFor(() => portOpen(temporalPort), 'Temporal dev server');
    const env = {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(apiPort),
      DATABASE_URL: benchDatabaseUrl(),
      TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret-00',
      // Production requires payload keys: one throw-away key, shared by the API and the worker.
      TEMPORAL_PAYLOAD_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    };
    const api = endsWithBench(spawn(process.execPath, VARIANTS[variant].api, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] }));
    const worker = endsWithBench(
      spawn(process.execPath, VARIANTS[variant].worker, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] }),
    );
    children.push(api, worker);
    const base = `http://127.0.0.1:${apiPort}`;
    await waitFor(async () => (await fetch(`${base}/readyz`)).ok, 'API');
    // The worker is up once it polls its task queue; then let both settle.
    await new Promise((r) => setTimeout(r, IDLE_SETTLE_MS));
    const apiIdle = rss(api.pid!).now;
    const workerIdle = rss(worker.pid!).now;

    let apiLoad = 0;
    let workerLoad = 0;
    const sampler = setInterval(() => {
      apiLoad = Math.max(apiLoad, rss(api.pid!).now);
      workerLoad = Math.max(workerLoad, rss(worker.pid!).now);
    }, 250);
    const load1 = os.loadavg()[0]!;
    let requests = 0;
    let errors = 0;
    for (const s of await scenarios()) {
      const r = await runLoad({
        url: `${base}${s.path}`,
        method: s.method,
        headers: s.method === 'POST' ? { 'content-type': 'application/json' } : {},
        next: s.next,
        connections: BENCH.connections,
        durationSeconds: SECONDS,
      });
      requests += r.rps * SECONDS;
      errors += r.errors;
    }
    clearInterval(sampler);
    const load2 = os.loadavg()[0]!;
    return {
      variant,
      apiIdle,
      apiLoad,
      apiPeak: rss(api.pid!).peak,
      workerIdle,
      workerLoad,
      workerPeak: rss(worker.pid!).peak,
      rps: requests / (3 * SECONDS),
      errors,
      load: `${load1.toFixed(1)} → ${load2.toFixed(1)}`,
      end: rssAtEnd([
        ['API', api.pid],
        ['worker', worker.pid],
      ]),
    };
  } finally {
    for (const child of children.reverse()) await stopChild(child);
  }
}

async function main(): Promise<void> {
  if (!existsSync(path.join(ROOT, 'dist/workflow-bundle.js'))) throw new Error('run `npm run build` first');
  const rows: Figures[] = [];
  for (const variant of Object.keys(VARIANTS) as Variant[]) {
    const figures = await measure(variant);
    console.log(JSON.stringify(figures));
    rows.push(figures);
  }
  const header = [
    '# API and worker resident memory: ts-node vs compiled',
    '',
    '`node -r ts-node/register bench/memory/run.ts` (after `npm run build` and `bench/catalog/generate.ts`);',
    'each run rewrites this file (earlier runs are in its git history). Each variant gets its own Temporal dev server, API and worker on the',
    'catalog benchmark database, NODE_ENV=production, LOG_LEVEL=warn. Idle = RSS 10 s after the API',
    "answers /readyz; under load = the highest RSS sampled every 250 ms while the catalog benchmark's",
    "three varied workloads (bench/catalog/workload.ts) run one after another at 50 connections; peak = the kernel's high-water mark",
    '(VmHWM) since start, which includes start-up (for the ts-node worker, bundling the workflows; the',
    'kernel updates it in batches, so it can read a fraction of a MiB below a sample). The load',
    'generator runs on the same host, which other work shares: the 1-minute load average before →',
    'after each variant is given. The catalog requests never reach the worker; its figure under load',
    'shows that nothing else grows there.',
    '',
    '',
  ].join('\n');
  const mib = (n: number) => n.toFixed(0);
  const lines = [
    `## ${new Date().toISOString().slice(0, 16)}Z: ${SECONDS} s per varied workload, ${os.cpus().length} cores, Node ${process.version}`,
    '',
    '| variant | API idle | API under load | API peak | worker idle | worker under load | worker peak | req/s | errors | load avg |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.variant} | ${mib(r.apiIdle)} MiB | ${mib(r.apiLoad)} MiB | ${mib(r.apiPeak)} MiB | ${mib(r.workerIdle)} MiB | ${mib(r.workerLoad)} MiB | ${mib(r.workerPeak)} MiB | ${r.rps.toFixed(0)} | ${r.errors} | ${r.load} |`,
    ),
    '',
    ...rows.map((r) => `${r.variant}: ${r.end}`),
    '',
  ];
  writeFileSync(RESULTS, header + lines.join('\n') + '\n');
  console.log(`written ${path.relative(ROOT, RESULTS)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
