// Seller listing search benchmark. `node -r ts-node/register bench/seller-listings/run.ts`
// Builds its own database (BENCH_DATABASE_URL, default mts_bench_listings on the local
// PostgreSQL): 2,000 catalog items, one seller with 50,000 listings and a second seller with
// 5,000 (so the seller scope has something to exclude). Then, in the same run, autocannon at 20
// connections against the real API and against the one-SQL baseline, per scenario. Writes
// bench/results/seller-listings.md and drops the database unless BENCH_KEEP=1.
import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { latency, runLoad, settle } from '../load';
import { adminQuery, cpuShare, cpuTicks, rssAtEnd } from '../support';
import { connectAndMigrate } from '../../src/db/data-source';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/mts_bench_listings';
const LISTINGS = 50_000;
const CONNECTIONS = 20;
const DURATION_S = Number(process.env.BENCH_DURATION ?? 15);
const API_PORT = 39_411;
const BASELINE_PORT = 39_412;
const UNCACHED_API_PORT = 39_413;

const SCENARIOS: Array<{ name: string; body: Record<string, unknown> }> = [
  { name: 'all 50,000 listings, 14 facets, first page', body: { size: 25 } },
  {
    name: 'facet selection (Condition + Valid), 14 facets',
    body: { facets: { Condition: ['NEAR_MINT', 'MINT'], Valid: [true] }, size: 25 },
  },
  { name: 'text query "charizard" + facet', body: { query: 'charizard', facets: { Rarity: ['Rare Holo'] }, size: 25 } },
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

function start(mode: 'api' | 'baseline', port: number, cacheMs = 0): Promise<ChildProcess> {
  const child = fork(path.join(__dirname, 'server.ts'), [mode, String(port), DATABASE_URL, String(cacheMs)], {
    execArgv: ['-r', 'ts-node/register'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
}

async function json(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

async function load(url: string, body: unknown, headers: Record<string, string>) {
  const common = {
    url,
    method: 'POST' as const,
    connections: CONNECTIONS,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
  await runLoad({ ...common, durationSeconds: 3 }); // warm-up: plans, pools, JIT
  await settle();
  return runLoad({ ...common, durationSeconds: DURATION_S });
}

async function main(): Promise<void> {
  await admin(`DROP DATABASE IF EXISTS ${dbName()} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${dbName()}`);
  const ds = await connectAndMigrate({ url: DATABASE_URL, poolSize: 1 });
  await ds.destroy();
  const c = new Client({ connectionString: DATABASE_URL });
  await c.connect();
  await seedCatalog(c);

  const children = [await start('api', API_PORT, 5000), await start('api', UNCACHED_API_PORT, 0), await start('baseline', BASELINE_PORT)];
  try {
    const base = `http://127.0.0.1:${API_PORT}`;
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

    const rows: string[] = [];
    const loadBefore = os.loadavg()[0]!.toFixed(1);
    const ticks = cpuTicks();
    for (const scenario of SCENARIOS) {
      const check = await json(`${base}/seller/listings/search`, scenario.body, seller.bearer);
      t = Date.now();
      const cached = await load(`${base}/seller/listings/search`, scenario.body, seller.bearer);
      const uncached = await load(`http://127.0.0.1:${UNCACHED_API_PORT}/seller/listings/search`, scenario.body, seller.bearer);
      const baseResult = await load(`http://127.0.0.1:${BASELINE_PORT}/`, { ...scenario.body, sellerId: seller.id }, {});
      const share = (r: { rps: number }) => `${((100 * r.rps) / baseResult.rps).toFixed(0)} %`;
      const cells = [
        `${scenario.name} (total ${check.total as number})`,
        cached.rps.toFixed(1),
        latency(cached),
        share(cached),
        uncached.rps.toFixed(1),
        latency(uncached),
        share(uncached),
        baseResult.rps.toFixed(1),
        latency(baseResult),
        cached.errors + uncached.errors + baseResult.errors,
      ];
      const line = `| ${cells.join(' | ')} |`;
      console.log(line, `(${Date.now() - t} ms)`);
      rows.push(line);
    }
    const report = [
      '# Seller listing search benchmark',
      '',
      `Run ${new Date().toISOString()} on this machine (${os.cpus().length} cores), PostgreSQL 15 on localhost. One seller with ${LISTINGS} listings`,
      `over 2,000 catalog items, a second seller with 5,000. autocannon, ${CONNECTIONS} connections, ${DURATION_S} s per measurement after a 3 s`,
      'warm-up; each target in its own process with a pool of 10. Latencies in ms. "cached": the default search cache',
      "(5 s; whole answers keyed by seller, request, page and the seller's listings version; repeated identical searches).",
      '"uncached": SELLER_SEARCH_CACHE_MS=0, every request counts all fourteen facets, reads its page and enriches its hits in SQL.',
      `Machine load average (1 min) ${loadBefore} before and ${os.loadavg()[0]!.toFixed(1)} after the measurements; CPU time during them: ${cpuShare(ticks, cpuTicks())}.`,
      rssAtEnd(
        [
          ['API (cached)', children[0]!.pid],
          ['API uncached', children[1]!.pid],
          ['baseline', children[2]!.pid],
        ],
        'no worker runs in this bench',
      ),
      '',
      '| scenario | API cached req/s | p50 / p99 | vs baseline | API uncached req/s | p50 / p99 | vs baseline | baseline req/s | baseline p50 / p99 | errors |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...rows,
      '',
      'Baseline: a bare Koa app running one SQL statement through `pg` that returns the same facets, total and page (bench/seller-listings/baseline-sql.ts).',
      '',
    ].join('\n');
    writeFileSync(path.join(__dirname, '../results/seller-listings.md'), report);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await c.end();
    if (process.env.BENCH_KEEP !== '1') await admin(`DROP DATABASE IF EXISTS ${dbName()} WITH (FORCE)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
