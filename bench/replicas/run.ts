// `npm run build && flock /tmp/quiet.lock node -r ts-node/register bench/replicas/run.ts`: Discover
// reads served through a streaming replica while listings are written to the primary, against the
// same reads on the primary alone, in alternating rounds of one run; writes
// bench/results/replicas.md. Starts its own primary and replica (test/support/streaming-replica.ts:
// initdb + pg_basebackup -R from the machine's PostgreSQL 15, as the postgres user when root),
// builds a catalog on the primary (bench/catalog/generate.ts) and removes it all at the end.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import API_NODE_FLAGS from '../../src/api-node-flags.json';
import { connectAndMigrate } from '../../src/db/data-source';
import { insertListings } from '../../src/services/listings/listing-rows';
import { listingInput } from '../../test/support/listings';
import { prng } from '../../test/support/random';
import { startStreamingPair } from '../../test/support/streaming-replica';
import { generateCatalog } from '../catalog/generate';
import { cycle, listingSearches, searches, take, zipf, type Workload } from '../catalog/workload';
import { latency, runLoad, settle, type LoadResult } from '../load';
import { compileToDist, cpuShare, cpuTicks, endsWithBench, freePort, percentile, stopChild, waitForHttp } from '../support';

/** Smaller than the catalog benchmark's: the pair is built from scratch on every run. */
const SIZE = { copies: 15, sellers: 200, listings: 50_000, popularListings: 500 };
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 5);
const CONNECTIONS = [1, 20];
/** Listings written to the primary per second, throughout every round of both sides. */
const WRITES_PER_SECOND = 20;
const DATABASE = 'mts_bench_replicas';

type Side = 'replica' | 'primary';
type Mode = 'uncached' | 'cached';

interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  workload: Workload;
}

interface Row {
  mode: Mode;
  scenario: string;
  side: Side;
  connections: number;
  result: LoadResult;
  /** Transactions the replica's database committed during the run: the reads it served (and its health checks). */
  replicaXacts: number;
}

/** A listing written every 1/WRITES_PER_SECOND s, and for each the time from its commit to its replay on the replica. */
function startWriter(primary: DataSource, replica: Client, sellerId: string, urns: string[]) {
  const random = prng(7);
  const rank = zipf(urns.length, 1, random);
  const replayMs: number[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const began = performance.now();
      await primary.transaction((tx) =>
        insertListings(tx, sellerId, [
          { input: listingInput({ urn: urns[rank()]!, price: 100 + Math.floor(random() * 10_000), quantity: 1 }) },
        ]),
      );
      const [{ lsn }] = await primary.query('SELECT pg_current_wal_insert_lsn()::text AS lsn');
      const committed = performance.now();
      // What a read that waited for the replica to replay this write would wait.
      while (!(await replica.query('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [lsn])).rows[0].done);
      replayMs.push(performance.now() - committed);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 / WRITES_PER_SECOND - (performance.now() - began))));
    }
  })();
  return {
    replayMs,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

/** Connected to the replica's `postgres` database, so its own queries do not count in the benchmark database's statistics. */
async function replicaXacts(replica: Client): Promise<number> {
  const { rows } = await replica.query('SELECT xact_commit::bigint AS n FROM pg_stat_database WHERE datname = $1', [DATABASE]);
  return Number(rows[0].n);
}

async function main(): Promise<void> {
  const load = { before: os.loadavg(), ticks: cpuTicks() };
  const pair = await startStreamingPair();
  const servers: ReturnType<typeof spawn>[] = [];
  try {
    const primaryUrl = pair.primaryUrl.replace(/\/postgres$/, `/${DATABASE}`);
    const replicaUrl = pair.replicaUrl.replace(/\/postgres$/, `/${DATABASE}`);
    const generated = await generateCatalog(primaryUrl, SIZE);
    const primary = await connectAndMigrate({ url: primaryUrl, poolSize: 2, applicationName: 'bench-writer' });
    const replica = new Client({ connectionString: pair.replicaUrl, application_name: 'bench-observer' });
    await replica.connect();
    const urns: string[] = (await primary.query(`SELECT urn FROM catalog_items ORDER BY md5(urn)`)).map((r: { urn: string }) => r.urn);
    const names: string[] = (await primary.query(`SELECT name FROM (SELECT DISTINCT name FROM catalog_items) n ORDER BY md5(name)`)).map(
      (r: { name: string }) => r.name,
    );
    const [{ user_id: sellerId }] = await primary.query(`SELECT user_id FROM seller_accounts ORDER BY user_id LIMIT 1`);
    const scenarios: Scenario[] = [
      {
        name: 'POST /listings/item (Zipf items, varied filters/sorts)',
        method: 'POST',
        path: '/listings/item',
        workload: listingSearches(urns),
      },
      {
        name: 'GET /search (misspellings and names, varied sorts/filters/pages)',
        method: 'GET',
        path: '/search?q=charzard',
        workload: searches(names),
      },
    ];

    const writer = startWriter(primary, replica, sellerId, urns);
    const rows: Row[] = [];
    const entry = compileToDist(['bench/replicas/server.ts'])[0]!;
    const env = { ...process.env, BENCH_PRIMARY_URL: primaryUrl, BENCH_REPLICA_URL: replicaUrl };
    for (const mode of ['uncached', 'cached'] as const) {
      const ports: Record<Side, number> = { replica: await freePort(), primary: await freePort() };
      for (const side of ['replica', 'primary'] as const) {
        servers.push(
          endsWithBench(spawn(process.execPath, [...API_NODE_FLAGS, entry, side, String(ports[side]), mode], { stdio: 'inherit', env })),
        );
        await waitForHttp(`http://127.0.0.1:${ports[side]}/healthz`);
      }
      const run = (s: Scenario, side: Side, connections: number, seconds: number, seed: number) =>
        runLoad({
          url: `http://127.0.0.1:${ports[side]}${s.path}`,
          method: s.method,
          headers: s.method === 'POST' ? { 'content-type': 'application/json' } : {},
          connections,
          durationSeconds: seconds,
          next: cycle(take(s.workload(seed), 20_000)),
        });
      for (const s of scenarios) {
        // Warm-up on draws never measured: JIT, pools and (cached) the popular part of the distribution.
        for (const side of ['replica', 'primary'] as const) await run(s, side, 20, 3, 1000);
        for (const connections of CONNECTIONS) {
          for (let round = 0; round < ROUNDS; round += 1) {
            // Alternate which side goes first, so neither always runs on the warmer host.
            const order: Side[] = round % 2 === 0 ? ['replica', 'primary'] : ['primary', 'replica'];
            for (const side of order) {
              await settle();
              const before = await replicaXacts(replica);
              const result = await run(s, side, connections, ROUND_SECONDS, 2000 + round);
              rows.push({ mode, scenario: s.name, side, connections, result, replicaXacts: (await replicaXacts(replica)) - before });
            }
          }
        }
      }
      for (const server of servers.splice(0)) await stopChild(server);
    }
    await writer.stop();
    await replica.end();
    await primary.destroy();
    const after = { load: os.loadavg(), ticks: cpuTicks() };
    writeFileSync(
      path.join(__dirname, '../results/replicas.md'),
      report(rows, scenarios, writer.replayMs, generated, {
        before: load.before,
        after: after.load,
        cpu: cpuShare(load.ticks, after.ticks),
      }),
    );
    console.log('wrote bench/results/replicas.md');
  } finally {
    for (const server of servers) await stopChild(server);
    await pair.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function report(
  rows: Row[],
  scenarios: Scenario[],
  replayMs: number[],
  generated: { items: number; listings: number },
  load: { before: number[]; after: number[]; cpu: string },
): string {
  const sorted = [...replayMs].sort((a, b) => a - b);
  const avg = (l: number[]) => l.map((n) => n.toFixed(1)).join(' / ');
  const lines = [
    '# Read replicas benchmark',
    '',
    `Run ${new Date().toISOString()} on ${os.cpus().length} CPU(s) (${os.cpus()[0]?.model ?? 'unknown'}), a host shared with other work ` +
      `(load average 1/5/15 min ${avg(load.before)} before, ${avg(load.after)} after; CPU time during the run: ${load.cpu}). ` +
      'Primary, streaming replica (both PostgreSQL 15, started by the run: initdb + pg_basebackup -R, fsync off), both API processes and the load generator ' +
      'on the same machine, loopback only: the replica adds no cores, so this shows what routing costs, not what a second machine adds.',
    `Catalog: ${generated.items.toLocaleString('en')} items, ${generated.listings.toLocaleString('en')} listings (bench/catalog/generate.ts at a smaller size). ` +
      `Throughout every round of both sides a writer inserts ${WRITES_PER_SECOND} listings a second on the primary (Zipf-popular items, so their change notifications reach the Discover caches). ` +
      `Workloads are bench/catalog/workload.ts's varied draws (no two consecutive requests alike, fresh draws per round, the same for both sides of a round). ` +
      `Per scenario a 3 s warm-up of each side at 20 connections, then ${ROUNDS} rounds of ${ROUND_SECONDS} s per side at each concurrency, the sides alternating which goes first; ` +
      'each cell is the median round (errors: sum). "replica" = the API with DATABASE_REPLICA_URLS set (reads routed by src/db/read-router.ts), "primary" = the same app without it; ' +
      'both compiled (bench/replicas/server.ts), pool 10 each (the replica side has 10 more to the replica). Latencies in ms.',
    '',
    `**Replica lag** (commit on the primary → replayed on the replica, polled on the replica, ${sorted.length} writes during the run): ` +
      `p50 ${percentile(sorted, 50).toFixed(2)} ms, p99 ${percentile(sorted, 99).toFixed(2)} ms, max ${sorted.at(-1)?.toFixed(2) ?? '—'} ms. ` +
      'This is also what a read that waited for the replica to replay its caller\'s write would wait (docs/replicas.md, "Read your own writes").',
    '',
  ];
  for (const mode of ['uncached', 'cached'] as const) {
    lines.push(
      mode === 'uncached'
        ? '## Every request reads the database (DISCOVER_CACHE_MS=0, SELLER_SEARCH_CACHE_MS=0)'
        : '## Discover caches as deployed (change notifications on)',
      '',
      '| scenario | connections | replica req/s | primary req/s | replica / primary | replica p50 / p99 | primary p50 / p99 | replica transactions per round, replica side / primary side | errors |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const s of scenarios) {
      for (const connections of CONNECTIONS) {
        const of = (side: Side) =>
          rows.filter((r) => r.mode === mode && r.scenario === s.name && r.side === side && r.connections === connections);
        const cell = (side: Side) => {
          const runs = of(side);
          const rps = median(runs.map((r) => r.result.rps));
          const mid = runs.find((r) => r.result.rps === rps)!;
          return { rps, mid, xacts: median(runs.map((r) => r.replicaXacts)), errors: runs.reduce((n, r) => n + r.result.errors, 0) };
        };
        const [r, p] = [cell('replica'), cell('primary')];
        lines.push(
          `| ${s.name} | ${connections} | ${r.rps.toFixed(0)} | ${p.rps.toFixed(0)} | ${((r.rps / p.rps) * 100).toFixed(0)} % | ${latency(r.mid.result)} | ${latency(p.mid.result)} | ${r.xacts} / ${p.xacts} | ${r.errors + p.errors} |`,
        );
      }
    }
    lines.push('');
  }
  lines.push(
    'Target (issue 46): the replica side within 10 % of the primary side. The transactions column shows where reads went: the replica ' +
      "side's count includes its router's health checks (two a second); the primary side has no router reading the replica, so its count is 0 " +
      "(the writer's replay polls and these counts run in another database).",
    '',
  );
  return lines.join('\n');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
