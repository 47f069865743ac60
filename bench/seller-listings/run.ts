// Seller listing search benchmark. `npm run build && node -r ts-node/register bench/seller-listings/run.ts`
// Builds its own database (BENCH_DATABASE_URL, default mts_bench_listings on the local
// PostgreSQL): 2,000 catalog items, one seller with 50,000 listings and a second seller with
// 5,000 (so the seller scope has something to exclude). Then, in the same run, autocannon at 50
// connections against the machine floor, the real API (compiled), the same API as two processes
// sharing the port (what a second replica adds on this machine) and the baseline (seller search
// as it was before the in-memory index, as one SQL statement), with varied searches drawn per
// request (workload.ts) and one repeated request as a labelled extra. Writes
// bench/results/seller-listings.md and drops the database unless BENCH_KEEP=1.
import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { latency, runLoad, settle } from '../load';
import { adminQuery, compileToDist, endsWithBench, cpuShare, cpuTicks, rssAtEnd } from '../support';
import { cycle, take, type Draw, type Workload } from '../catalog/workload';
import { connectAndMigrate } from '../../src/db/data-source';
import API_NODE_FLAGS from '../../src/api-node-flags.json';
import { repeatShare, sellerSearches } from './workload';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/mts_bench_listings';
const LISTINGS = 50_000;
const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_DURATION ?? 15);
const PORTS = { api: 39_411, baseline: 39_412, floor: 39_413, api2: 39_414 };
/** Requests drawn per round: more than any target answers in one, so none is sent twice. */
const PREDRAWN = 40_000;

interface Scenario {
  name: string;
  target: string;
  workload?: Workload;
  /** The repeated request of the labelled extra. */
  body?: Record<string, unknown>;
}

const SCENARIOS: Scenario[] = [
  { name: 'varied searches: facets, text, some filters, pages', target: '≥ 3 × baseline, p99 < 100 ms', workload: sellerSearches(false) },
  { name: 'varied searches, 1–2 filters on every request', target: '≥ 3 × baseline, p99 < 100 ms', workload: sellerSearches(true) },
  { name: 'extra, repeated body: all 50,000 listings, first page', target: '—', body: { size: 25 } },
];

const admin = (sql: string) => adminQuery(DATABASE_URL, sql);

const dbName = () => new URL(DATABASE_URL).pathname.slice(1);

async function seedCatalog(c: Client): Promise<void> {
  await c.query(`INSERT INTO catalog_games (urn, name) VALUES ('pokemon', 'Pokémon')`);
  await c.query(`INSERT INTO catalog_series (urn, game_urn, name)
                 SELECT 'pokemon/s' || n, 'pokemon', 'Series ' || n FROM generate_series(1, 4) n`);
  await c.query(`INSERT INTO catalog_sets (urn, series_urn, game_urn, name)
                 SELECT 'pokemon/s' || (1 + n % 4) || '/set' || n, 'pokemon/s' || (1 + n % 4), 'pokemon', 'Set ' || n
                   FROM generate_series(1, 40) n`);
  await c.query(`
    INSERT INTO catalog_items (urn, slug, type, game_urn, series_urn, set_urn, title, name, rarity, number, images)
    SELECT 'pokemon/s' || (1 + (n % 40 + 1) % 4) || '/set' || (n % 40 + 1) || '/' || n, 'item-' || n,
           CASE WHEN n % 50 = 0 THEN 'sealed' ELSE 'card' END, 'pokemon', 'pokemon/s' || (1 + (n % 40 + 1) % 4),
           'pokemon/s' || (1 + (n % 40 + 1) % 4) || '/set' || (n % 40 + 1),
           (ARRAY['Charizard','Pikachu','Blastoise','Venusaur','Mewtwo','Gengar','Alakazam','Dragonite'])[1 + n % 8] || ' ' || n,
           (ARRAY['Charizard','Pikachu','Blastoise','Venusaur','Mewtwo','Gengar','Alakazam','Dragonite'])[1 + n % 8],
           (ARRAY['Common','Uncommon','Rare','Rare Holo','Ultra Rare'])[1 + n % 5], n::text,
           jsonb_build_array(jsonb_build_object('urn', 'img' || n, 'orientation', 'portrait', 'url', 'http://img/' || n,
             'illustrator', (ARRAY['Ken Sugimori','Mitsuhiro Arita','Kagemaru Himeno','5ban Graphics'])[1 + n % 4]))
      FROM generate_series(1, 2000) n`);
}

async function seedListings(c: Client, sellerId: string, count: number): Promise<void> {
  await c.query(
    `WITH items AS (SELECT urn, name, title, row_number() OVER (ORDER BY urn) - 1 AS n FROM catalog_items)
     INSERT INTO listings (id, seller_id, item_urn, condition, language, price, quantity, reserved, comment,
                           grading_provider, grading_score, notes, hidden, valid, search_text, created_at, updated_at)
     SELECT gen_random_uuid(), $1, i.urn, (ARRAY['MINT','NEAR_MINT','EXCELLENT','GOOD','LIGHT_PLAYED','PLAYED','POOR'])[1 + g % 7],
            'en', 50 + (g * 37) % 20000, g % 12, 0, '', CASE WHEN g % 20 = 0 THEN 'PSA' END, CASE WHEN g % 20 = 0 THEN '9' END,
            'SKU-' || g, g % 25 = 0, g % 30 <> 0, lower(i.name || ' ' || i.title || ' sku-' || g),
            now() - make_interval(secs => g), now()
       FROM generate_series(1, $2::int) g JOIN items i ON i.n = g % 2000`,
    [sellerId, count],
  );
}

interface Target {
  child: ChildProcess;
  /** The processes that serve (two for `api2`), for their memory. */
  pids: number[];
}

function start(mode: 'api' | 'api2' | 'baseline' | 'floor', port: number, arg: string): Promise<Target> {
  const [server] = compileToDist(['server.ts', 'baseline-sql.ts'].map((f) => `bench/seller-listings/${f}`));
  // Every target runs with the API's V8 flags, as the API is deployed.
  const child = endsWithBench(fork(server!, [mode, String(port), DATABASE_URL, arg], { execArgv: API_NODE_FLAGS }));
  return new Promise((resolve, reject) => {
    child.once('message', (m: { pids: number[] }) => resolve({ child, pids: m.pids }));
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
}

async function json(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** The baseline takes the seller in the body (it has no authentication). */
const forBaseline =
  (sellerId: string) =>
  (d: Draw): Draw => ({ ...d, body: JSON.stringify({ ...JSON.parse(d.body!), sellerId }) });

/** One round: warm-up, then the measurement, each with its own draws of the workload (same seeds for every side). */
async function load(port: number, s: Scenario, headers: Record<string, string>, seed: number, wrap: (d: Draw) => Draw = (d) => d) {
  const common = {
    url: `http://127.0.0.1:${port}/seller/listings/search`,
    method: 'POST' as const,
    connections: CONNECTIONS,
    headers: { 'content-type': 'application/json', ...headers },
    body: wrap({ path: '/seller/listings/search', body: JSON.stringify(s.body ?? {}) }).body,
  };
  const draws = (n: number) => (s.workload ? { next: cycle(take(s.workload(n), PREDRAWN).map(wrap)) } : {});
  await runLoad({ ...common, durationSeconds: 3, ...draws(seed) }); // warm-up: plans, pools, JIT, indexes
  await settle();
  return runLoad({ ...common, durationSeconds: DURATION_S, ...draws(seed + 1) });
}

async function main(): Promise<void> {
  await admin(`DROP DATABASE IF EXISTS ${dbName()} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${dbName()}`);
  const ds = await connectAndMigrate({ url: DATABASE_URL, poolSize: 1 });
  await ds.destroy();
  const c = new Client({ connectionString: DATABASE_URL });
  await c.connect();
  await seedCatalog(c);

  const targets: Target[] = [
    await start('api', PORTS.api, '5000'),
    await start('baseline', PORTS.baseline, ''),
    await start('api2', PORTS.api2, '5000'),
  ];
  try {
    const base = `http://127.0.0.1:${PORTS.api}`;
    const register = async (name: string) => {
      const reg = await json(`${base}/auth/register`, { email: `${name}@bench.test`, username: name, password: 'bench-password-123' });
      const bearer = { Authorization: `Bearer ${reg.accessToken as string}` };
      await json(`${base}/seller`, {}, bearer);
      return { id: (reg.user as { id: string }).id, bearer };
    };
    const seller = await register('benchseller');
    const other = await register('benchother');
    let t = Date.now();
    await seedListings(c, seller.id, LISTINGS);
    await seedListings(c, other.id, 5_000);
    await c.query('ANALYZE');
    console.log(`seeded ${LISTINGS + 5_000} listings in ${Date.now() - t} ms`);

    // The floor: fixed bytes as large as a first page of all listings, no work.
    const first = await fetch(`${base}/seller/listings/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...seller.bearer },
      body: JSON.stringify({ size: 25 }),
    });
    const floorBytes = Buffer.byteLength(await first.text());
    targets.push(await start('floor', PORTS.floor, String(floorBytes)));
    const loadBefore = os.loadavg()[0]!.toFixed(1);
    const ticks = cpuTicks();
    const floor = await load(PORTS.floor, { name: 'floor', target: '', body: { size: 25 } }, {}, 0);
    console.log(`floor ${floor.rps.toFixed(0)} req/s`);

    const rows: string[] = [];
    const notes: string[] = [];
    for (const [n, scenario] of SCENARIOS.entries()) {
      const seed = 1000 * (n + 1);
      t = Date.now();
      const api = await load(PORTS.api, scenario, seller.bearer, seed);
      await settle();
      const api2 = await load(PORTS.api2, scenario, seller.bearer, seed);
      await settle();
      const baseline = await load(PORTS.baseline, scenario, {}, seed, forBaseline(seller.id));
      await settle();
      const cells = [
        scenario.name,
        baseline.rps.toFixed(1),
        api.rps.toFixed(0),
        `${(api.rps / baseline.rps).toFixed(1)} ×`,
        `${((100 * api.rps) / floor.rps).toFixed(1)} %`,
        latency(baseline),
        latency(api),
        scenario.target,
        api2.rps.toFixed(0),
        latency(api2),
        api.errors + api2.errors + baseline.errors,
      ];
      const line = `| ${cells.join(' | ')} |`;
      console.log(line, `(${Date.now() - t} ms)`);
      rows.push(line);
      if (scenario.workload) {
        notes.push(
          `${scenario.name}: ${(100 * repeatShare(scenario.workload(seed + 1), 10_000)).toFixed(0)} % of the first 10,000 draws repeat an earlier body`,
        );
      }
    }
    const report = [
      '# Seller listing search benchmark',
      '',
      `Run ${new Date().toISOString()} on this machine (${os.cpus().length} cores), PostgreSQL 15 on localhost. One seller with ${LISTINGS} listings`,
      `over 2,000 catalog items, a second seller with 5,000. autocannon, ${CONNECTIONS} connections, ${DURATION_S} s per measurement after a 3 s`,
      `warm-up with other draws; each target compiled, in its own process, with a pool of 10 and the API's V8 flags (${API_NODE_FLAGS.join(' ')}). Latencies in ms.`,
      '',
      '- **API**: the real app, production settings, default `SELLER_SEARCH_CACHE_MS` (5 s): matching (query, facets, filters),',
      "  counting and paging on the in-memory index of the seller's listings, the page's listings read per answer (their item",
      "  views and the seller's summary from Discover's caches), whole answers cached (an answer is served again only when the",
      '  distribution repeats a body within the cache TTL).',
      '- **baseline**: seller search as it was before the index (the old service with its cache off measured 85–100 % of it):',
      '  a bare Koa app answering with ONE SQL statement through `pg` that computes the same facets, total and page',
      '  (bench/seller-listings/baseline-sql.ts, frozen).',
      `- **floor**: a bare node:http server answering ${floorBytes} fixed bytes (a first page of all listings) with no work:`,
      `  ${floor.rps.toFixed(0)} req/s, p50 / p99 ${latency(floor)}.`,
      '- **API, 2 processes**: the same API as two processes sharing the port (node:cluster gives each connection to one in',
      '  turn), each with its own caches: what a second replica adds where one process saturates a core. A labelled extra:',
      '  the target is read on the single process.',
      '- Varied workloads (bench/seller-listings/workload.ts) draw every request from a seed; the repeated body is a labelled extra.',
      ...notes.map((n) => `- ${n}.`),
      '',
      `Machine load average (1 min) ${loadBefore} before and ${os.loadavg()[0]!.toFixed(1)} after the measurements; CPU time during them: ${cpuShare(ticks, cpuTicks())}.`,
      rssAtEnd(
        [
          ['API', targets[0]!.pids[0]],
          ['baseline', targets[1]!.pids[0]],
          ...targets[2]!.pids.map((pid, n): [string, number] => [`API, 2 processes: process ${n + 1}`, pid]),
        ],
        'no worker runs in this bench',
      ),
      '',
      '| scenario | baseline req/s | API req/s | API / baseline | API / floor | baseline p50 / p99 | API p50 / p99 | target | API, 2 processes req/s | API, 2 processes p50 / p99 | errors |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n');
    writeFileSync(path.join(__dirname, '../results/seller-listings.md'), report);
  } finally {
    for (const { child } of targets) child.kill('SIGTERM');
    await c.end();
    if (process.env.BENCH_KEEP !== '1') await admin(`DROP DATABASE IF EXISTS ${dbName()} WITH (FORCE)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
