// How the Discover operations grow with the catalog. For each size in BENCH_GROWTH_SIZES (items,
// default "10000,100000"; "10000,100000,1000000" for the million) it builds a database
// mts_bench_growth_<items> with generate.ts's shape scaled (≈ 5.15 live-or-not listings per item,
// one seller per 100 items, the popular item at 2,000 listings; listings inserted with the market
// triggers off and item_market filled in one aggregate), records each step's time and the
// database size, then serves it with the API without its Discover cache (DISCOVER_CACHE_MS=0:
// every request reads the database) in its own process and measures, at 1 connection and at 50,
// for BENCH_GROWTH_SECONDS (default 5) after a 2 s warm-up, four varied workloads:
//   - bulk lookup of 200 URNs drawn Zipf(1.0) over the catalog;
//   - typo search: the 72 real misspellings of data/search/misspellings.json, relevance order;
//   - listing search of the popular item (2,000 listings), varied filters, sorts and pages;
//   - price-sorted catalog search for real names drawn Zipf(1.0), pages 1–3.
// Each size also measures the machine floor (a bare node:http server, fixed bytes) in the same run.
// Writes bench/results/catalog-growth.md with EXPLAIN (ANALYZE, BUFFERS) of the operation whose
// 1-connection p50 grew most, on the largest catalog. Drops the databases unless BENCH_KEEP=1;
// with BENCH_GROWTH_REUSE=1 a size whose database was kept is migrated and measured, not rebuilt
// (the million takes 5-20 minutes to build on this host).
// The API's RSS is read once it has settled (idle) and at the end of the size's workloads, against
// the budget idle + Discover's cache budget (discoverCacheBudgetBytes) + 64 MB.
//   node -r ts-node/register bench/catalog/growth.ts
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import misspellings from '../../data/search/misspellings.json';
import { latency, runLoad, settle, type LoadResult } from '../load';
import { adminQuery, endsWithBench, cpuShare, cpuTicks, processMemory, rssAtEnd, waitForHttp as waitFor } from '../support';
import { connectAndMigrate } from '../../src/db/data-source';
import { loadItems } from '../../src/services/catalog/item-view';
import { searchCatalog } from '../../src/services/search/catalog-search';
import { searchListings } from '../../src/services/search/listing-search';
import { capturingDataSource, explainCalls } from './explain';
import { generateCatalog } from './generate';
import { BENCH, cacheBudgetMb, RSS_SLACK_MB } from './settings';
import { prng } from '../../test/support/random';
import API_NODE_FLAGS from '../../src/api-node-flags.json';
import { bulkLookups, cycle, listingSearches, take, zipf, type Draw } from './workload';

const SIZES = (process.env.BENCH_GROWTH_SIZES ?? '10000,100000').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_GROWTH_SECONDS ?? 5);
const API_PORT = Number(process.env.BENCH_GROWTH_API_PORT ?? 3720);
const FLOOR_PORT = Number(process.env.BENCH_GROWTH_FLOOR_PORT ?? 3721);
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REAL_ITEMS = 644;
const CONNECTIONS = [1, BENCH.connections];
const REUSE = process.env.BENCH_GROWTH_REUSE === '1';
const CACHE_BUDGET_MB = cacheBudgetMb();

const OPERATIONS = [
  'bulk lookup, 200 Zipf URNs',
  'typo search (relevance)',
  'listing search, popular item',
  'catalog search by price',
] as const;
type Operation = (typeof OPERATIONS)[number];

const urlOf = (items: number) => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/mts_bench_growth_${items}`;
  return url.toString();
};

function serve(target: 'uncached' | 'floor', url: string): ChildProcess {
  return endsWithBench(
    spawn(process.execPath, [...API_NODE_FLAGS, '-r', 'ts-node/register', path.join(__dirname, 'server.ts'), target, '600'], {
      stdio: 'inherit',
      env: { ...process.env, BENCH_DATABASE_URL: url, BENCH_UNCACHED_API_PORT: String(API_PORT), BENCH_FLOOR_PORT: String(FLOOR_PORT) },
    }),
  );
}

/** Requests each workload cycles through (the API here is uncached: repeats cost the same as new ones). */
const RING = 5000;

/** The four workloads, drawn from this catalog (popularity: a fixed scattering of it). */
async function workloads(url: string): Promise<Record<Operation, { method: 'GET' | 'POST'; draws: Draw[] }>> {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  const urns: string[] = (await pg.query(`SELECT urn FROM catalog_items ORDER BY md5(urn)`)).rows.map((r) => r.urn);
  const names: string[] = (await pg.query(`SELECT name FROM (SELECT DISTINCT name FROM catalog_items) n ORDER BY md5(name)`)).rows.map(
    (r) => r.name,
  );
  await pg.end();
  const random = prng(7);
  const name = zipf(names.length, 1.0, random);
  const typos = (misspellings as Array<[string, string]>).map(([typo]) => typo);
  return {
    'bulk lookup, 200 Zipf URNs': { method: 'POST', draws: take(bulkLookups(urns)(1), RING) },
    'typo search (relevance)': { method: 'GET', draws: typos.map((q) => ({ path: `/search?${new URLSearchParams({ q })}` })) },
    'listing search, popular item': {
      method: 'POST',
      draws: take(listingSearches(urns)(3), RING).map((d) => ({
        ...d,
        body: JSON.stringify({ ...JSON.parse(d.body!), urn: BENCH.popularUrn }),
      })),
    },
    'catalog search by price': {
      method: 'GET',
      draws: Array.from({ length: 2000 }, () => ({
        path: `/search?${new URLSearchParams({ q: names[name()]!, sort: 'price', page: String(1 + Math.floor(random() * 3)) })}`,
      })),
    },
  };
}

/** A database of this size kept by an earlier run (BENCH_KEEP=1), migrated to now; null if there is none. */
async function keptCatalog(url: string): Promise<{ steps: Array<[string, number]>; items: number; listings: number } | null> {
  const name = new URL(url).pathname.slice(1);
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const { rowCount } = await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [name]);
  await admin.end();
  if (!rowCount) return null;
  const started = Date.now();
  const db = await connectAndMigrate({ url, poolSize: 2, applicationName: 'bench-growth' });
  const migrated = (Date.now() - started) / 1000;
  const [counts] = await db.query(
    `SELECT (SELECT count(*) FROM catalog_items)::int AS items, (SELECT count(*) FROM listings)::int AS listings`,
  );
  await db.destroy();
  console.log(`reusing ${name}: ${counts.items} items (migrations ${migrated.toFixed(1)} s)`);
  return { steps: [['kept database: migrations', migrated]], items: counts.items, listings: counts.listings };
}

interface SizeResult {
  items: number;
  listings: number;
  steps: Array<[string, number]>;
  dbBytes: number;
  /** The machine floor at each connection count, measured with this size. */
  floor: Record<number, LoadResult>;
  results: Record<Operation, Record<number, LoadResult>>;
  rss: string;
  /** The API's RSS (MiB) once settled, before any request, and after the last workload. */
  idleRss: number;
  endRss: number;
  load: string;
}

async function measureSize(target: number): Promise<SizeResult> {
  const url = urlOf(target);
  const copies = Math.max(0, Math.round(target / REAL_ITEMS) - 1);
  const items = REAL_ITEMS * (copies + 1);
  console.log(`\n== ${items} items`);
  const generated =
    (REUSE && (await keptCatalog(url))) ||
    (await generateCatalog(url, {
      copies,
      sellers: Math.max(100, Math.round(items / 100)),
      listings: Math.round(items * 5.15),
      popularListings: BENCH.popularListings,
      bulkMarket: true,
    }));
  const pg = new Client({ connectionString: url });
  await pg.connect();
  const dbBytes = Number((await pg.query(`SELECT pg_database_size(current_database()) AS b`)).rows[0].b);
  await pg.end();

  const floorServer = serve('floor', url);
  const api = serve('uncached', url);
  try {
    await waitFor(`http://127.0.0.1:${FLOOR_PORT}/`);
    await waitFor(`http://127.0.0.1:${API_PORT}/healthz`);
    await settle();
    const idleRss = processMemory(api.pid!)?.rss ?? NaN;
    const floor: Record<number, LoadResult> = {};
    for (const connections of CONNECTIONS) {
      floor[connections] = await runLoad({ url: `http://127.0.0.1:${FLOOR_PORT}/`, method: 'GET', connections, durationSeconds: SECONDS });
    }
    const load = workloads(url);
    const results = {} as SizeResult['results'];
    for (const [op, w] of Object.entries(await load) as Array<[Operation, { method: 'GET' | 'POST'; draws: Draw[] }]>) {
      results[op] = {};
      for (const connections of CONNECTIONS) {
        const spec = {
          url: `http://127.0.0.1:${API_PORT}`,
          method: w.method,
          headers: (w.method === 'POST' ? { 'content-type': 'application/json' } : {}) as Record<string, string>,
          connections,
          next: cycle(w.draws),
        };
        await runLoad({ ...spec, durationSeconds: 2 });
        await settle();
        const r = await runLoad({ ...spec, durationSeconds: SECONDS });
        results[op][connections] = r;
        console.log(`${op} [${connections} conn]: ${r.rps.toFixed(0)} req/s, p50 / p99 ${latency(r)} ms, errors ${r.errors}`);
      }
    }
    const rss = rssAtEnd([['API', api.pid]], 'no worker runs in this bench');
    const endRss = processMemory(api.pid!)?.rss ?? NaN;
    return {
      idleRss,
      endRss,
      items: generated.items,
      listings: generated.listings,
      steps: generated.steps,
      dbBytes,
      floor,
      results,
      rss,
      load: os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' / '),
    };
  } finally {
    floorServer.kill('SIGTERM');
    api.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** One representative request per operation, called through the services for EXPLAIN. */
async function explainWorst(url: string, op: Operation): Promise<string[]> {
  const db = await capturingDataSource(url);
  try {
    const [{ urns }] = await db.query(`SELECT array_agg(urn) AS urns FROM (SELECT urn FROM catalog_items ORDER BY md5(urn) LIMIT 200) x`);
    const calls: Record<Operation, () => Promise<unknown>> = {
      'bulk lookup, 200 Zipf URNs': () => loadItems(db, urns),
      'typo search (relevance)': () => searchCatalog(db, { q: 'charzard', sort: 'relevance', page: 1, size: 20 }),
      'listing search, popular item': () => searchListings(db, { urn: BENCH.popularUrn, filters: {}, sort: 'price', from: 0, size: 20 }),
      'catalog search by price': () => searchCatalog(db, { q: 'pikachu', sort: 'price', page: 1, size: 20 }),
    };
    return await explainCalls(db, [[`${op}: a representative request`, calls[op]]]);
  } finally {
    await db.destroy();
  }
}

function report(sizes: SizeResult[], worst: Operation, plans: string[], loadBefore: string, cpu: string): string {
  const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MiB`;
  const stepNames = [...new Set(sizes.flatMap((s) => s.steps.map(([n]) => n)))];
  const first = sizes[0]!;
  const lines = [
    '# Discover: growth with the catalog',
    '',
    `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${os.cpus().length} CPU(s) (${os.cpus()[0]?.model ?? 'unknown'}), shared with other work; ` +
      `load average (1/5/15 min) ${loadBefore} before; CPU time during the run: ${cpu}.`,
    `\`BENCH_GROWTH_SIZES=${SIZES.join(',')} node -r ts-node/register bench/catalog/growth.ts\`: each catalog generated by generate.ts's ` +
      'SQL scaled (≈ 5.15 listings per item, one seller per 100 items, the popular item with 2,000 listings; listings inserted with ' +
      'the market triggers off, then item_market filled in one aggregate), served by the API with DISCOVER_CACHE_MS=0 in its own ' +
      `process (pool of 10), measured with autocannon for ${SECONDS} s after a 2 s warm-up per cell; every request drawn from a ` +
      'varied workload (bench/catalog/growth.ts). Latencies in ms. The machine is loaded by other work: compare rows of one run; ' +
      'the growth ratios are the result, not the absolute figures.',
    '',
    '## Build',
    '',
    `| items | listings | ${stepNames.join(' s | ')} s | database size |`,
    `|---:|---:|${stepNames.map(() => '---:').join('|')}|---:|`,
    ...sizes.map(
      (s) =>
        `| ${s.items.toLocaleString('en-GB')} | ${s.listings.toLocaleString('en-GB')} | ${stepNames
          .map((n) => s.steps.find(([m]) => m === n)?.[1].toFixed(1) ?? '—')
          .join(' | ')} | ${mb(s.dbBytes)} |`,
    ),
    '',
    '## Operations',
    '',
    'p50 and p99 growth are largest / smallest catalog (the target: p99 at 1 connection grows < 2 ×); "vs floor" divides ' +
      "the p50 growth by the floor's slowdown at the same connections (its req/s on the smallest / on the largest: the " +
      "machine's own drift between the sizes, measured with each size).",
    '',
    `| operation | connections | ${sizes.map((s) => `${s.items.toLocaleString('en-GB')} items: req/s, p50 / p99`).join(' | ')} | p50 growth | vs floor | p99 growth |`,
    `|---|---:|${sizes.map(() => '---').join('|')}|---:|---:|---:|`,
  ];
  for (const op of OPERATIONS) {
    for (const c of CONNECTIONS) {
      const cells = sizes.map((s) => {
        const r = s.results[op][c]!;
        return `${r.rps.toFixed(0)}, ${latency(r)}${r.errors ? ` (${r.errors} errors)` : ''}`;
      });
      const growth = sizes.at(-1)!.results[op][c]!.p50 / first.results[op][c]!.p50;
      const p99Growth = sizes.at(-1)!.results[op][c]!.p99 / first.results[op][c]!.p99;
      const floorGrowth = first.floor[c]!.rps / sizes.at(-1)!.floor[c]!.rps;
      lines.push(
        `| ${op} | ${c} | ${cells.join(' | ')} | × ${growth.toFixed(1)} | × ${(growth / floorGrowth).toFixed(1)} | × ${p99Growth.toFixed(1)} |`,
      );
    }
  }
  for (const c of CONNECTIONS) {
    lines.push(
      `| machine floor (bare node:http, 600 fixed bytes) | ${c} | ${sizes.map((s) => `${s.floor[c]!.rps.toFixed(0)}, ${latency(s.floor[c]!)}`).join(' | ')} | slowdown × ${(first.floor[c]!.rps / sizes.at(-1)!.floor[c]!.rps).toFixed(1)} | — | — |`,
    );
  }
  lines.push(
    '',
    ...sizes.map((s) => `${s.items.toLocaleString('en-GB')} items: ${s.rss} Load average after: ${s.load}.`),
    '',
    `API RSS against its budget (idle + Discover's cache budget, ${CACHE_BUDGET_MB.toFixed(0)} MiB, + ${RSS_SLACK_MB} MiB; this API runs ` +
      'with DISCOVER_CACHE_MS=0, so its caches hold nothing and the bound is loose by the whole cache budget):',
    '',
    '| items | idle MiB | end MiB | end − idle | budget MiB | within |',
    '|---:|---:|---:|---:|---:|---|',
    ...sizes.map((s) => {
      // The config reads MB as 2^20 bytes (src/config.ts), as /proc's RSS is counted here.
      const budget = s.idleRss + CACHE_BUDGET_MB + RSS_SLACK_MB;
      return `| ${s.items.toLocaleString('en-GB')} | ${s.idleRss.toFixed(0)} | ${s.endRss.toFixed(0)} | ${(s.endRss - s.idleRss).toFixed(0)} | ${budget.toFixed(0)} | ${s.endRss <= budget ? 'yes' : '**no**'} |`;
    }),
    '',
    `## EXPLAIN of the operation that grew most at 1 connection (${worst}), on ${sizes.at(-1)!.items.toLocaleString('en-GB')} items`,
    '',
    ...plans,
  );
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const loadBefore = os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ');
  const ticks = cpuTicks();
  const sizes: SizeResult[] = [];
  try {
    for (const target of SIZES) {
      sizes.push(await measureSize(target));
      const name = new URL(urlOf(target)).pathname.slice(1);
      if (process.env.BENCH_KEEP !== '1' && target !== SIZES.at(-1))
        await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
    const growth = (op: Operation) => sizes.at(-1)!.results[op][1]!.p50 / sizes[0]!.results[op][1]!.p50;
    const worst = [...OPERATIONS].sort((a, b) => growth(b) - growth(a))[0]!;
    const plans = await explainWorst(urlOf(SIZES.at(-1)!), worst);
    const text = report(sizes, worst, plans, loadBefore, cpuShare(ticks, cpuTicks()));
    writeFileSync(path.join(__dirname, '../results/catalog-growth.md'), text);
    console.log(text.split('## EXPLAIN')[0]);
  } finally {
    if (process.env.BENCH_KEEP !== '1') {
      for (const target of SIZES)
        await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS ${new URL(urlOf(target)).pathname.slice(1)} WITH (FORCE)`);
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
