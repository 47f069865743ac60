// Checkout throughput benchmark. `node -r ts-node/register bench/checkout/run.ts`
// The whole path for real: its own database (BENCH_DATABASE_URL, default mts_bench_checkout on
// the local PostgreSQL), a Temporal CLI dev server (.venv/bin/temporal, or TEMPORAL_CLI_PATH),
// the real worker and the real API on a local port. 20 concurrent buyers (BENCH_BUYERS), each on
// its own listing, loop for BENCH_DURATION seconds: fill a fresh basket (one PUT line, one PUT
// delivery), POST checkout (session + holds + checkout workflow), POST the payment (commit).
// Reports sessions created and committed per second with p50/p99 latencies, and how long each
// workflow start waited in the start outbox meanwhile (the worker process's dispatcher runs
// beside the worker, as in production); writes bench/results/checkout.md and drops the
// database unless BENCH_KEEP=1.
import { writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { adminQuery, percentile } from '../support';
import { createServices } from '../../src/composition';
import { loadConfig } from '../../src/config';
import { connectAndMigrate } from '../../src/db/data-source';
import { createApp } from '../../src/http/app';
import { createLogger } from '../../src/logger';
import { createWorker } from '../../worker/create-worker';
import { createStartDispatcher } from '../../worker/start-dispatcher';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/mts_bench_checkout';
const BUYERS = Number(process.env.BENCH_BUYERS ?? 20);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 20);
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

async function main(): Promise<void> {
  await admin(`DROP DATABASE IF EXISTS ${dbName()} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${dbName()}`);
  const db = await connectAndMigrate({ url: DATABASE_URL, poolSize: 20 });
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: TEMPORAL_CLI }, namespace: 'default', extraArgs: ['--log-level', 'error'] },
  });
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL,
    LOG_LEVEL: 'silent',
    SCRYPT_LOG_N: '10',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
  });
  const app = createApp(createServices(config, db, env.client), config, createLogger('silent', 'bench'));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const worker = await createWorker({ config, db, connection: env.nativeConnection });
  const running = worker.run();
  const dispatcher = createStartDispatcher(config, db, env.client, createLogger('silent', 'start-dispatcher'));
  dispatcher.start();

  // Seed: one seller with a GB delivery option and one deep listing per buyer.
  const register = async (name: string) =>
    (await (
      await call(base, 'POST', '/auth/register', null, { email: `${name}@bench.test`, username: name, password: 'bench password 123' })
    ).json()) as {
      user: { id: string };
      accessToken: string;
    };
  const seller = await register('benchseller');
  await call(base, 'POST', '/seller', seller.accessToken);
  await call(base, 'POST', '/seller/delivery-options', seller.accessToken, {
    name: '2nd class',
    price: 150,
    tracked: false,
    countries: ['GB'],
  });
  await db.query(`INSERT INTO catalog_games (urn, name) VALUES ('pokemon', 'Pokémon')`);
  await db.query(`INSERT INTO catalog_series (urn, game_urn, name) VALUES ('pokemon/base', 'pokemon', 'Base')`);
  await db.query(
    `INSERT INTO catalog_sets (urn, series_urn, game_urn, name) VALUES ('pokemon/base/bs', 'pokemon/base', 'pokemon', 'Base Set')`,
  );
  const listingIds: string[] = [];
  for (let i = 0; i < BUYERS; i += 1) {
    await db.query(
      `INSERT INTO catalog_items (urn, slug, game_urn, series_urn, set_urn, title, name) VALUES ($1, $2, 'pokemon', 'pokemon/base', 'pokemon/base/bs', $3, $3)`,
      [`pokemon/base/bs/${i}`, `card-${i}`, `Card ${i}`],
    );
    const [{ id }] = await db.query(
      `INSERT INTO listings (id, seller_id, item_urn, condition, language, price, quantity, valid) VALUES (gen_random_uuid(), $1, $2, 'NEAR_MINT', 'en', 1000, 1000000, true) RETURNING id`,
      [seller.user.id, `pokemon/base/bs/${i}`],
    );
    listingIds.push(id);
  }
  const buyers = await Promise.all(Array.from({ length: BUYERS }, (_, i) => register(`benchbuyer${i}`)));

  const checkoutMs: number[] = [];
  const payMs: number[] = [];
  const cycleMs: number[] = [];
  const deadline = Date.now() + DURATION_S * 1000;
  const started = Date.now();
  await Promise.all(
    buyers.map(async (buyer, i) => {
      while (Date.now() < deadline) {
        const cycle = performance.now();
        const basket = (await (await call(base, 'GET', '/basket', buyer.accessToken)).json()) as { id: string };
        await call(base, 'PUT', `/basket/${basket.id}/items/${listingIds[i]}`, buyer.accessToken, { quantity: 1 });
        await call(base, 'PUT', `/basket/${basket.id}/delivery`, buyer.accessToken, { address: ADDRESS });
        let t = performance.now();
        const { url } = (await (
          await call(base, 'POST', `/basket/${basket.id}/checkout`, buyer.accessToken, { successUrl: 'https://shop.example/ok' })
        ).json()) as { url: string };
        checkoutMs.push(performance.now() - t);
        t = performance.now();
        const paid = await fetch(base + new URL(url).pathname, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'outcome=success',
        });
        if (paid.status !== 303) throw new Error(`payment → ${paid.status}`);
        payMs.push(performance.now() - t);
        cycleMs.push(performance.now() - cycle);
      }
    }),
  );
  const elapsed = (Date.now() - started) / 1000;
  const load = (await import('node:os'))
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

  // Every start requested during the run, once the outbox has drained (or 60 s have passed).
  const drainDeadline = Date.now() + 60_000;
  while (Date.now() < drainDeadline) {
    const [{ waiting }] = await db.query(`SELECT count(*)::int AS waiting FROM workflow_starts WHERE started_at IS NULL`);
    if (waiting === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
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
  const row = (name: string, xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return `| ${name} | ${xs.length} | ${(xs.length / elapsed).toFixed(1)} | ${percentile(s, 50).toFixed(1)} | ${percentile(s, 99).toFixed(1)} |`;
  };
  const report = `# Checkout throughput

\`node -r ts-node/register bench/checkout/run.ts\` — ${BUYERS} concurrent buyers, each on its own listing, for ${DURATION_S} s
(${elapsed.toFixed(1)} s measured), against the real API, worker, PostgreSQL and a Temporal CLI dev server, all on this
machine (${new Date().toISOString().slice(0, 10)}; 2 cores shared with other jobs, so treat the figures as a floor).

Each cycle: GET /basket, PUT the line, PUT the delivery address, POST checkout, POST the payment (303).

| step | count | per second | p50 ms | p99 ms |
|---|---|---|---|---|
${row('checkout sessions created (POST /basket/{id}/checkout)', checkoutMs)}
${row('payments committed (POST /pay/{id})', payMs)}
${row('whole cycle (basket fill + checkout + commit)', cycleMs)}

Purchases in the database afterwards: ${purchases}. Listings with negative stock or leftover holds: ${negative}.
Load average at the end of the run: ${load}.

Workflow starts requested during the run, from the requesting transaction to Temporal accepting
the start (through the start outbox and its dispatcher):

| start | started | p50 ms | p99 ms | max ms | still waiting |
|---|---|---|---|---|---|
${lags.map((l) => `| ${l.type} | ${l.n} | ${Number(l.p50).toFixed(1)} | ${Number(l.p99).toFixed(1)} | ${Number(l.max).toFixed(1)} | ${l.waiting} |`).join('\n')}
`;
  writeFileSync(path.join(__dirname, '../results/checkout.md'), report);
  process.stdout.write(report);

  server.close();
  await dispatcher.stop();
  worker.shutdown();
  await running;
  await db.destroy();
  await env.teardown();
  if (process.env.BENCH_KEEP !== '1') await admin(`DROP DATABASE IF EXISTS ${dbName()} WITH (FORCE)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
