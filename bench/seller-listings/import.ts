// Times a 10,000-row CSV listing import end to end: HTTP upload → Temporal dev server →
// worker (batches of IMPORT_BATCH_SIZE, default 500) → Postgres, until the import is COMPLETED.
// `node -r ts-node/register bench/seller-listings/import.ts`. Uses its own database
// (mts_bench_import on the local PostgreSQL), dropped at the end.
//
// To tell the `item_market` triggers' share from the machine's noise, one run imports once to
// warm up (not reported), then BENCH_IMPORT_PAIRS (default 2) pairs, alternating: with the market triggers on `listings`, then
// with them disabled (a counterfactual: the market is not kept meanwhile). Each import uses a
// fresh seller and a fresh set of 100 items, so every import starts from the same market. Per
// import it reports: wall time, the delay until the first batch's transaction began, the gaps
// between consecutive batch transactions (from `listings.created_at`, the transaction start),
// and the time PostgreSQL spent in the market functions (pg_stat_user_functions, with
// track_functions = 'pl' on this database). Then, in a rolled-back transaction, one 500-row
// batch over 100 items with its refresh forced (SET CONSTRAINTS ALL IMMEDIATE), timed with and
// without the triggers, and the plans of its statements that took 1 ms or more (auto_explain, sent to the client).
// BENCH_IMPORT_PREVIOUS_REFRESH=1 puts back the refresh function of before migration
// 1733506000000 (one aggregate over all touched URNs), for a before/after on the same machine.
// Rewrites bench/results/seller-listings-import.md with a row per import and writes the profile,
// with the plans, to bench/results/seller-listings-import-profile.md (with
// BENCH_IMPORT_PREVIOUS_REFRESH=1 only to …-profile-previous.md, a counterfactual); both profiles are
// generated on demand and not committed.
import { appendFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { IN_PROCESS, adminQuery, cpuShare, cpuTicks, percentile, rssAtEnd } from '../support';
import { connectAndMigrate } from '../../src/db/data-source';
import { ItemMarketRefreshPerItem1733506000000 } from '../../src/db/migrations/1733506000000-item-market-refresh-per-item';
import { createLogger } from '../../src/logger';
import { createWorker } from '../../worker/create-worker';
import { createStartDispatcher } from '../../worker/start-dispatcher';
import { registerSeller, startTestApi, type TestApi } from '../../test/support/api';
import { ADMIN_DATABASE_URL, databaseUrl } from '../../test/support/env';
import { seedCatalog } from '../../test/support/fixtures';
import { devServerEnv, workflowBundle } from '../../test/support/temporal';

const ROWS = 10_000;
const PAIRS = Number(process.env.BENCH_IMPORT_PAIRS ?? 2);
const PREVIOUS_REFRESH = process.env.BENCH_IMPORT_PREVIOUS_REFRESH === '1';
const NAME = 'mts_bench_import';
const RESULTS = path.join(__dirname, '..', 'results', 'seller-listings-import.md');
/** What a run's results file starts with; its reading is written by hand under the title. */
const RESULTS_HEAD = `# 10,000-row CSV import

\`node -r ts-node/register bench/seller-listings/import.ts\`: HTTP upload → Temporal dev server → worker (batches of 500,
one transaction each, with 10,000 \`LISTING_CREATED\` outbox rows) → Postgres, timed from the upload until the import reads
\`COMPLETED\`. Each run rewrites this file (earlier runs are in its git history) with one row per import; its profile is in
\`seller-listings-import-profile.md\` (generated, not committed). The load average is a 2-core machine shared with other
work: compare rows of one run, not across runs.

| run | machine load (1 min) | time | rows/s |
|---|---|---|---|
`;
const PROFILE = path.join(
  __dirname,
  '..',
  'results',
  `seller-listings-import-profile${process.env.BENCH_IMPORT_PREVIOUS_REFRESH === '1' ? '-previous' : ''}.md`,
);
const MARKET_TRIGGERS = ['listings_market_insert', 'listings_market_update', 'listings_market_delete'];
const MARKET_FUNCTIONS = ['listings_note_market', 'item_market_flush', 'item_market_refresh'];

const admin = (sql: string) => adminQuery(ADMIN_DATABASE_URL, sql);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function setMarketTriggers(db: DataSource, enabled: boolean): Promise<void> {
  for (const t of MARKET_TRIGGERS) await db.query(`ALTER TABLE listings ${enabled ? 'ENABLE' : 'DISABLE'} TRIGGER ${t}`);
}

/** Cumulative ms per market function. Backends report their counters when idle, within ~10 s. */
async function functionMs(db: DataSource): Promise<Record<string, { calls: number; ms: number }>> {
  await sleep(11_000);
  const rows: Array<{ funcname: string; calls: string; total_time: number }> = await db.query(
    `SELECT funcname, calls, total_time FROM pg_stat_user_functions WHERE funcname = ANY($1)`,
    [MARKET_FUNCTIONS],
  );
  return Object.fromEntries(rows.map((r) => [r.funcname, { calls: Number(r.calls), ms: r.total_time }]));
}

interface ImportRun {
  market: boolean;
  ms: number;
  firstBatchMs: number;
  gaps: number[];
  fn: Record<string, { calls: number; ms: number }>;
  cpu: string;
}

/** One import of 10,000 rows by a new seller over 100 new items; n < 0 is the warm-up, not recorded. */
async function importOnce(api: TestApi, db: DataSource, market: boolean, n: number): Promise<ImportRun> {
  await setMarketTriggers(db, market);
  const before = await functionMs(db);
  const { items } = await seedCatalog(db, { names: Array.from({ length: 100 }, (_, i) => `Card ${i}`) });
  const seller = await registerSeller(api, `seller${n + 1}`);
  const csv = [
    'urn,condition,language,price,quantity,reference',
    ...Array.from({ length: ROWS }, (_, i) => `${items[i % items.length]!.urn},NEAR_MINT,en,${100 + i},${1 + (i % 5)},ref-${i}`),
  ].join('\n');
  const ticks = cpuTicks();
  const started = Date.now();
  const accepted = await api.http.post('/seller/imports').set(seller.bearer).set('Content-Type', 'text/csv').send(csv).expect(202);
  for (;;) {
    const res = await api.http.get(`/seller/imports/${accepted.body.id}`).set(seller.bearer).expect(200);
    if (res.body.status === 'FAILED') throw new Error(`import failed: ${JSON.stringify(res.body)}`);
    if (res.body.status === 'COMPLETED') break;
    await sleep(50);
  }
  const ms = Date.now() - started;
  const cpu = cpuShare(ticks, cpuTicks());
  const starts: Array<{ at: Date; created: Date }> = await db.query(
    `SELECT l.created_at AS at, i.created_at AS created FROM listings l JOIN listing_imports i ON i.id = l.import_id
      WHERE l.import_id = $1 GROUP BY 1, 2 ORDER BY 1`,
    [accepted.body.id],
  );
  const gaps = starts.slice(1).map((s, i) => s.at.getTime() - starts[i]!.at.getTime());
  const after = await functionMs(db);
  const fn = Object.fromEntries(
    MARKET_FUNCTIONS.map((f) => [
      f,
      { calls: (after[f]?.calls ?? 0) - (before[f]?.calls ?? 0), ms: (after[f]?.ms ?? 0) - (before[f]?.ms ?? 0) },
    ]),
  );
  const firstBatchMs = starts[0]!.at.getTime() - starts[0]!.created.getTime();
  const at = new Date().toISOString().slice(0, 16).replace('T', ' ');
  // The previous refresh is a counterfactual: its imports go to its profile only.
  if (n >= 0 && !PREVIOUS_REFRESH)
    appendFileSync(
      RESULTS,
      `| ${at} UTC${market ? '' : ' (market triggers disabled)'} | ≈ ${loadavg()[0]!.toFixed(1)} | ${(ms / 1000).toFixed(1)} s | ${Math.round((ROWS * 1000) / ms).toLocaleString('en-GB')} |\n`,
    );
  return { market, ms, firstBatchMs, gaps, fn, cpu };
}

/** One batch-shaped INSERT (500 rows over 100 items), its refresh forced, rolled back; ms of each step. */
async function oneBatch(c: Client, sellerId: string, urns: string[]): Promise<{ insert: number; refresh: number }> {
  await c.query('BEGIN');
  try {
    let t = performance.now();
    await c.query(
      `INSERT INTO listings (id, seller_id, item_urn, condition, language, price, quantity, comment, variants, hidden, valid, search_text)
       SELECT gen_random_uuid(), $1, ($2::text[])[1 + i % cardinality($2::text[])], 'NEAR_MINT', 'en', 100 + i, 1 + i % 5, '', '[]', false, true, 'card ' || i
         FROM generate_series(0, 499) i`,
      [sellerId, urns],
    );
    const insert = performance.now() - t;
    t = performance.now();
    await c.query('SET CONSTRAINTS ALL IMMEDIATE');
    return { insert, refresh: performance.now() - t };
  } finally {
    await c.query('ROLLBACK');
  }
}

async function main(): Promise<void> {
  await admin(`DROP DATABASE IF EXISTS ${NAME} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${NAME}`);
  await admin(`ALTER DATABASE ${NAME} SET track_functions = 'pl'`);
  const url = databaseUrl(NAME);
  const db = await connectAndMigrate({ url, poolSize: 10 });
  if (PREVIOUS_REFRESH) {
    const q = db.createQueryRunner();
    await new ItemMarketRefreshPerItem1733506000000().down(q);
    await q.release();
  }
  const env = await devServerEnv();
  const api = await startTestApi({ temporal: env.client, database: { url, db, close: async () => undefined } });
  const worker = await createWorker({ config: api.config, db, connection: env.nativeConnection, workflowBundle: await workflowBundle() });
  const running = worker.run();
  // The import workflow starts through the start outbox, as the worker process runs it.
  const dispatcher = createStartDispatcher(api.config, db, env.client, createLogger('silent', 'start-dispatcher'));
  dispatcher.start();
  const lines: string[] = [];
  try {
    if (!PREVIOUS_REFRESH) writeFileSync(RESULTS, RESULTS_HEAD);
    await importOnce(api, db, true, -1);
    const runs: ImportRun[] = [];
    for (let p = 0; p < PAIRS; p += 1) {
      runs.push(await importOnce(api, db, true, 2 * p));
      runs.push(await importOnce(api, db, false, 2 * p + 1));
    }
    await setMarketTriggers(db, true);

    // The refresh in isolation, on the database as the imports left it (20,000+ listings).
    const { items } = await seedCatalog(db, { names: Array.from({ length: 100 }, (_, i) => `Card ${i}`) });
    const urns = items.map((i) => i.urn);
    const [{ user_id: sellerId }] = await db.query(`SELECT user_id FROM seller_accounts LIMIT 1`);
    const c = new Client({ connectionString: url });
    await c.connect();
    const micro: Record<'on' | 'off', Array<{ insert: number; refresh: number }>> = { on: [], off: [] };
    for (let i = 0; i < 8; i += 1) {
      for (const mode of ['on', 'off'] as const) {
        if (mode === 'off') await c.query('BEGIN');
        if (mode === 'off') for (const t of MARKET_TRIGGERS) await c.query(`ALTER TABLE listings DISABLE TRIGGER ${t}`);
        if (mode === 'off') await c.query('COMMIT');
        micro[mode].push(await oneBatch(c, sellerId, urns));
        if (mode === 'off') for (const t of MARKET_TRIGGERS) await c.query(`ALTER TABLE listings ENABLE TRIGGER ${t}`);
      }
    }
    const plans: string[] = [];
    c.on('notice', (n) => plans.push(n.message ?? ''));
    await c.query(`LOAD 'auto_explain'`);
    for (const s of [
      `SET auto_explain.log_min_duration = 1`,
      `SET auto_explain.log_analyze = on`,
      `SET auto_explain.log_buffers = on`,
      `SET auto_explain.log_nested_statements = on`,
      `SET auto_explain.log_level = notice`,
    ])
      await c.query(s);
    await oneBatch(c, sellerId, urns);
    await c.end();

    const med = (xs: number[]) =>
      percentile(
        [...xs].sort((a, b) => a - b),
        50,
      );
    const f1 = (x: number) => x.toFixed(1);
    lines.push(
      `# 10,000-row CSV import: profile`,
      '',
      `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, 2 shared cores; load average at the end ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}.`,
      '`' +
        (PREVIOUS_REFRESH ? 'BENCH_IMPORT_PREVIOUS_REFRESH=1 ' : '') +
        'BENCH_IMPORT_PAIRS=' +
        PAIRS +
        ' node -r ts-node/register bench/seller-listings/import.ts`' +
        (PREVIOUS_REFRESH ? ': the refresh function of before migration 1733506000000.' : ': the current refresh function.'),
      '',
      'Imports alternate with the `item_market` triggers on `listings` and with them disabled (counterfactual). ' +
        '"first batch" is upload → first batch transaction (outbox, workflow start, CSV parse); "batch gap" is the time between ' +
        'consecutive batch transactions (activity scheduling + one batch); "in market functions" is PostgreSQL time inside ' +
        '`listings_note_market` (statement trigger) and `item_market_flush` (commit trigger, including `item_market_refresh`).',
      '',
      '| import | market triggers | wall | first batch ms | batch gap p50 / max ms | in market functions (calls, ms) | CPU |',
      '|---|---|---|---|---|---|---|',
      ...runs.map((r, i) => {
        const g = [...r.gaps].sort((a, b) => a - b);
        const fn = `note ${r.fn.listings_note_market!.calls} / ${f1(r.fn.listings_note_market!.ms)}, flush ${r.fn.item_market_flush!.calls} / ${f1(r.fn.item_market_flush!.ms)} (refresh ${f1(r.fn.item_market_refresh!.ms)})`;
        return `| ${i + 1} | ${r.market ? 'on' : 'off'} | ${(r.ms / 1000).toFixed(2)} s | ${r.firstBatchMs} | ${percentile(g, 50)} / ${g[g.length - 1]} | ${fn} | ${r.cpu} |`;
      }),
      '',
      'One batch-shaped statement (500 rows over 100 items) in a rolled-back transaction, the commit trigger forced with ' +
        '`SET CONSTRAINTS ALL IMMEDIATE`, 8 times each, alternating (median ms):',
      '',
      '| market triggers | INSERT | refresh at commit |',
      '|---|---|---|',
      `| on | ${f1(med(micro.on.map((m) => m.insert)))} | ${f1(med(micro.on.map((m) => m.refresh)))} |`,
      `| off | ${f1(med(micro.off.map((m) => m.insert)))} | ${f1(med(micro.off.map((m) => m.refresh)))} |`,
      '',
      rssAtEnd([[IN_PROCESS, 'self']]),
      '',
      'Plans of that batch, statements nested in the triggers included (auto_explain):',
      '',
      '```',
      ...plans,
      '```',
      '',
    );
    writeFileSync(PROFILE, lines.join('\n'));
    process.stdout.write(lines.slice(0, 25).join('\n') + '\n');
  } finally {
    await dispatcher.stop();
    worker.shutdown();
    await running;
    await api.close();
    await db.destroy();
    await env.teardown();
    await admin(`DROP DATABASE IF EXISTS ${NAME} WITH (FORCE)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
