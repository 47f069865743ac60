// `npm run build && node -r ts-node/register bench/catalog/run.ts` (after generate.ts): each
// scenario against the baseline and then the API, 50 connections, same run, loopback only; writes
// bench/results/catalog.md. Every target runs compiled (server.ts and the build under dist/).
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { latency, runLoad, settle, type LoadResult } from '../load';
import { compileToDist, endsWithBench, cpuShare, cpuTicks, processMemory, rssAtEnd, waitForHttp as waitFor } from '../support';
import API_NODE_FLAGS from '../../src/api-node-flags.json';
import { BENCH, benchDatabaseUrl, cacheBudgetMb, QUIET_SECONDS, RSS_SLACK_MB } from './settings';
import { bulkLookups, cycle, listingSearches, searches, take, type Workload } from './workload';

interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  /** The request checked before measuring, and the one repeated by a repeated-body scenario. */
  path: string;
  body?: string;
  target: string;
  /** A varied workload: fresh draws from a seed per round, the same for every side of that round. */
  workload?: Workload;
}

interface Row {
  scenario: string;
  side: 'baseline' | 'api' | 'uncached' | 'floor';
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function scenarios(): Promise<Scenario[]> {
  const pg = new Client({ connectionString: benchDatabaseUrl() });
  await pg.connect();
  // Popularity ranks: a fixed scattering of the catalog (and of its distinct names).
  const urns: string[] = (await pg.query(`SELECT urn FROM catalog_items ORDER BY md5(urn)`)).rows.map((r) => r.urn);
  const names: string[] = (await pg.query(`SELECT name FROM (SELECT DISTINCT name FROM catalog_items) n ORDER BY md5(name)`)).rows.map(
    (r) => r.name,
  );
  await pg.end();
  const fixed = JSON.stringify({ urns: urns.slice(0, 200) });
  return [
    {
      name: 'bulk lookup, 200 URNs (Zipf)',
      method: 'POST',
      path: '/search/lookup/bulk',
      body: fixed,
      target: '≥ 30 % of floor; p99 < 50 ms',
      workload: bulkLookups(urns),
    },
    {
      name: 'GET /search, misspellings and names, varied sorts/filters/pages',
      method: 'GET',
      path: '/search?q=charzard',
      target: '≥ 5 × baseline; p99 < 50 ms',
      workload: searches(names),
    },
    {
      name: 'POST /listings/item (Zipf items, varied filters/sorts)',
      method: 'POST',
      path: '/listings/item',
      body: JSON.stringify({ urn: BENCH.popularUrn }),
      target: '≥ 5 × baseline; p99 < 30 ms',
      workload: listingSearches(urns),
    },
    { name: 'extra, repeated body: bulk lookup, same 200 URNs', method: 'POST', path: '/search/lookup/bulk', body: fixed, target: '—' },
    { name: 'extra, repeated body: GET /search?q=charzard', method: 'GET', path: '/search?q=charzard', target: '—' },
    {
      name: 'extra, repeated body: POST /listings/item, popular item',
      method: 'POST',
      path: '/listings/item',
      body: JSON.stringify({ urn: BENCH.popularUrn }),
      target: '—',
    },
  ];
}

/** Requests drawn per run: more than any target answers in a round, so none is sent twice. */
const PREDRAWN = { bulk: 15_000, other: 60_000 };

/**
 * One run of a scenario. `seed` picks the draws of a varied workload: every side of a round gets
 * the same requests, and no round (nor warm-up) repeats another's, so a cache in the API only ever
 * serves what the distribution itself repeats.
 */
function load(port: number, s: Scenario, durationSeconds: number, connections: number, seed: number): Promise<LoadResult> {
  return runLoad({
    url: `http://127.0.0.1:${port}${s.path}`,
    method: s.method,
    body: s.body,
    headers: s.body ? { 'content-type': 'application/json' } : {},
    connections,
    durationSeconds,
    // Drawn before the clock starts, so building request bodies does not take CPU from the target.
    ...(s.workload ? { next: cycle(take(s.workload(seed), s.path === '/search/lookup/bulk' ? PREDRAWN.bulk : PREDRAWN.other)) } : {}),
  });
}

/**
 * Each side must answer correctly before it is measured; a fast wrong answer proves nothing.
 * Returns the answer's size in bytes.
 */
async function check(port: number, s: Scenario): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}${s.path}`, {
    method: s.method,
    body: s.body,
    headers: s.body ? { 'content-type': 'application/json' } : {},
  });
  const text = await res.text();
  const body = JSON.parse(text) as unknown[] | { items?: unknown[]; hits?: unknown[] };
  const size = Array.isArray(body) ? body.length : (body.items ?? body.hits ?? []).length;
  if (res.status !== 200 || size === 0) throw new Error(`${s.name} on port ${port}: status ${res.status}, ${size} results`);
  return Buffer.byteLength(text);
}

/** The targets' entry point, compiled (with what it imports from this folder) beside the build. */
const server = () => compileToDist(['server.ts', 'baseline.ts', 'settings.ts'].map((f) => `bench/catalog/${f}`))[0]!;

/**
 * The machine's floor: a bare node:http server answering fixed bytes as large as the bulk lookup
 * answer, doing no work at all. What it reaches is what this machine and load generator allow
 * any server today, which separates the host's speed (it varies between days on shared VMs,
 * and within a run) from the code's. It stays up for the whole run: besides the figures of the
 * header, it is a fourth side of every round at 50 connections, so each round's share of the
 * floor compares two rates measured a few seconds apart.
 */
function startFloor(bytes: number) {
  return endsWithBench(spawn(process.execPath, [...API_NODE_FLAGS, server(), 'floor', String(bytes)], { stdio: 'inherit' }));
}

const loadFloor = (connections: number) =>
  runLoad({ url: `http://127.0.0.1:${BENCH.floorPort}/`, method: 'GET', headers: {}, connections, durationSeconds: BENCH.roundSeconds });

async function measureFloor(bytes: number): Promise<{ bytes: number; many: LoadResult; one: LoadResult }> {
  await waitFor(`http://127.0.0.1:${BENCH.floorPort}/`);
  await settle();
  const many = await loadFloor(BENCH.connections);
  const one = await loadFloor(1);
  return { bytes, many, one };
}

/** Per scenario at 50 connections: the API's rate over the floor's in each round, median over the rounds. */
type FloorShares = Map<string, { median: number; rounds: number[]; floorRps: number[] }>;

/** The lowest and highest rate of the floor over the rounds. */
function floorRange(shares: FloorShares): string {
  const all = [...shares.values()].flatMap((s) => s.floorRps);
  return `${Math.min(...all).toFixed(0)}–${Math.max(...all).toFixed(0)}`;
}

const medianOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const find = (rows: Row[], s: Scenario, side: Row['side'], connections: number) =>
  rows.find((r) => r.scenario === s.name && r.side === side && r.connections === connections)!;

function report(
  rows: Row[],
  list: Scenario[],
  load: { before: number[]; after: number[]; cpu: string },
  floor: Awaited<ReturnType<typeof measureFloor>>,
  shares: FloorShares,
  rss: string,
): string {
  const avg = (l: number[]) => l.map((n) => n.toFixed(1)).join(' / ');
  const lines = [
    '# Catalog / Discover benchmark',
    '',
    `Run ${new Date().toISOString()} on ${os.cpus().length} CPU(s) (${os.cpus()[0]?.model ?? 'unknown'}), ` +
      `load average (1/5/15 min) ${avg(load.before)} before, ${avg(load.after)} after; CPU time during the run: ${load.cpu}. ` +
      'PostgreSQL, server and load generator on the same machine, loopback only.',
    `Catalog: ≥ 100,000 items, ≥ 500,000 listings (bench/catalog/generate.ts), market data in item_market. autocannon (bench/load.ts); per scenario a 3 s warm-up of each side (the cached API: ${BENCH.apiWarmSeconds} s more on varied workloads, on draws never measured), then ` +
      `${BENCH.rounds} alternating ${BENCH.roundSeconds} s rounds baseline / API / API without cache (and the floor, at ${BENCH.connections} connections); each cell is the median round (errors: sum over rounds). ` +
      `baseline = bare Koa + one SQL statement via pg (bench/catalog/baseline.ts), same pool size (10); each target in its own process, compiled (bench/catalog/server.ts beside the build in dist/, no ts-node; Node ${process.version}, with the API's V8 flags ${API_NODE_FLAGS.join(' ')}, src/api-node-flags.json). Latencies in ms.`,
    `Machine floor: a bare node:http server answering ${(floor.bytes / 1000).toFixed(0)} kB of fixed bytes (the bulk lookup answer's size) with no work ` +
      `reached ${floor.many.rps.toFixed(0)} req/s, p50 / p99 ${latency(floor.many)} at ${BENCH.connections} connections and ` +
      `${floor.one.rps.toFixed(0)} req/s, p50 / p99 ${latency(floor.one)} at 1 connection, measured before the scenarios; ` +
      `in the rounds at ${BENCH.connections} connections it made ${floorRange(shares)} req/s.`,
    rss,
    '',
    `## ${BENCH.connections} connections`,
    '',
    '"API" is the service as deployed (Discover caches on: item views, rankings and each item\'s live listings kept until a change is notified, the sellers shown on listing hits for DISCOVER_CACHE_MS, 30 s); "API, no cache" is the same app with DISCOVER_CACHE_MS=0, ' +
      'so every request reads the database like the baseline does. The first three scenarios are varied workloads (bench/catalog/workload.ts): ' +
      'every request drawn from a distribution (Zipf over the catalog, real misspellings, varied filters, sorts and pages), no two consecutive ' +
      'requests alike. Each round draws fresh requests from its own seed (the same for every side of that round), drawn before the clock starts; no round repeats a request list another round or the warm-up sent, ' +
      'so what a cache serves there is what the distribution itself repeats (popular items and queries). "extra, repeated body" scenarios send one body over and over (what a whole-answer cache serves best). ' +
      '"API / floor" compares with the floor (fixed bytes the size of a bulk lookup answer), which runs as a fourth side of every round: ' +
      "each round's API rate over the floor's rate in the same round, the median of the rounds (the host's speed drifts within a run).",
    '',
    '| scenario | baseline req/s | API req/s | API / baseline | API / floor | API, no cache req/s | no cache / baseline | baseline p50 / p99 | API p50 / p99 | API, no cache p50 / p99 | target | errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|',
  ];
  const share = (a: Row, b: Row) => `${((a.rps / b.rps) * 100).toFixed(0)} %`;
  for (const s of list) {
    const [b, a, u] = (['baseline', 'api', 'uncached'] as const).map((side) => find(rows, s, side, BENCH.connections)) as [Row, Row, Row];
    lines.push(
      `| ${s.name} | ${b.rps.toFixed(0)} | ${a.rps.toFixed(0)} | ${share(a, b)} | ${(shares.get(s.name)!.median * 100).toFixed(1)} % | ${u.rps.toFixed(0)} | ${share(u, b)} | ${latency(b)} | ${latency(a)} | ${latency(u)} | ${s.target} | ${b.errors + a.errors + u.errors} |`,
    );
  }
  const perRound = list.map(
    (s) =>
      `${s.name}: ${shares
        .get(s.name)!
        .rounds.map((x) => (100 * x).toFixed(1))
        .join(', ')}`,
  );
  lines.push(
    '',
    `API / floor in each round, %: ${perRound.join('; ')}.`,
    '',
    '## 1 connection (service time without queueing), varied workloads',
    '',
    '| scenario | baseline req/s | API req/s | API, no cache req/s | baseline p50 / p99 | API p50 / p99 | API, no cache p50 / p99 |',
    '|---|---:|---:|---:|---:|---:|---:|',
  );
  for (const s of list.filter((x) => x.workload)) {
    const [b, a, u] = (['baseline', 'api', 'uncached'] as const).map((side) => find(rows, s, side, 1)) as [Row, Row, Row];
    lines.push(
      `| ${s.name} | ${b.rps.toFixed(0)} | ${a.rps.toFixed(0)} | ${u.rps.toFixed(0)} | ${latency(b)} | ${latency(a)} | ${latency(u)} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The API's RSS at the end against the target: idle + Discover's cache budget as configured + 64 MB,
 * read twice: at the end of the run (after the uncached API's last round), and once the API has been
 * idle past its young-generation trim (src/http/young-generation-trim.ts), which gives back what
 * its last round grew it to.
 */
function memoryAgainstBudget(idle: number, end: { rss: number; seconds: number }, quiet: number): string {
  const budgetMb = cacheBudgetMb();
  const allowed = idle + budgetMb + RSS_SLACK_MB;
  const verdict = (rss: number) => `${(rss - idle).toFixed(0)} (${rss <= allowed ? 'met' : '**missed**'})`;
  return (
    `The API's RSS against its target (idle, read before the first request, + Discover's cache budget, ${budgetMb.toFixed(0)} MiB ` +
    `by discoverCacheBudgetBytes, + ${RSS_SLACK_MB} MiB = ${(budgetMb + RSS_SLACK_MB).toFixed(0)} above idle): idle ${idle.toFixed(0)}; ` +
    `end ${end.rss.toFixed(0)}, ${end.seconds.toFixed(0)} s after the API's last request: above idle ${verdict(end.rss)}; ` +
    `${QUIET_SECONDS} s after it, past the young-generation trim: ` +
    `${quiet.toFixed(0)}, above idle ${verdict(quiet)}.`
  );
}

async function main(): Promise<void> {
  // Every target runs with the API's V8 flags, as the API is deployed.
  const servers = (['api', 'uncached', 'baseline'] as const).map((target) =>
    endsWithBench(spawn(process.execPath, [...API_NODE_FLAGS, server(), target], { stdio: 'inherit' })),
  );
  let floorServer: ReturnType<typeof startFloor> | undefined;
  try {
    await waitFor(`http://127.0.0.1:${BENCH.apiPort}/healthz`);
    await waitFor(`http://127.0.0.1:${BENCH.baselinePort}/`);
    await waitFor(`http://127.0.0.1:${BENCH.uncachedApiPort}/healthz`);
    await settle();
    const idleRss = processMemory(servers[0]!.pid!)?.rss ?? NaN;
    // What the idle RSS is made of, printed by the API (compared with the same at the end).
    servers[0]!.kill('SIGUSR2');
    const all = await scenarios();
    const list = all.filter((s) => BENCH.scenarios.length === 0 || BENCH.scenarios.some((part) => s.name.includes(part)));
    const rows: Row[] = [];
    const bytes = await check(BENCH.apiPort, all[0]!);
    floorServer = startFloor(bytes);
    const floor = await measureFloor(bytes);
    const shares: FloorShares = new Map();
    let apiLastRequestAt = Date.now();
    const before = os.loadavg();
    const ticks = cpuTicks();
    for (const connections of [BENCH.connections, 1]) {
      for (const s of list) {
        if (connections === 1 && !s.workload) continue;
        const sides = [
          ['baseline', BENCH.baselinePort],
          ['api', BENCH.apiPort],
          ['uncached', BENCH.uncachedApiPort],
        ] as const;
        const rounds: Record<Row['side'], Row[]> = { baseline: [], api: [], uncached: [], floor: [] };
        const withFloor = connections === BENCH.connections;
        const seed = (round: number) => 1000 * connections + round;
        for (const [side, port] of sides) {
          await check(port, s);
          await load(port, s, Math.min(3, BENCH.roundSeconds), connections, seed(-1));
          // The API as deployed is measured warm, as after a while in service: its caches hold what
          // this distribution asks for often. Fresh draws (another seed), never the measured ones.
          if (side === 'api' && s.workload && connections === BENCH.connections)
            await load(port, s, BENCH.apiWarmSeconds, connections, seed(-2));
        }
        // Alternating rounds: on a machine shared with other work, load drifts over a run; the
        // median round of each side compares them under the same conditions.
        for (let round = 0; round < BENCH.rounds; round += 1) {
          for (const [side, port] of sides) {
            await settle();
            const r = await load(port, s, BENCH.roundSeconds, connections, seed(round));
            if (side === 'api') apiLastRequestAt = Date.now();
            rounds[side].push({ scenario: s.name, side, connections, ...r });
          }
          if (withFloor) {
            await settle();
            rounds.floor.push({ scenario: s.name, side: 'floor', connections, ...(await loadFloor(connections)) });
          }
        }
        if (withFloor) {
          const perRound = rounds.api.map((a, n) => a.rps / rounds.floor[n]!.rps);
          shares.set(s.name, { median: medianOf(perRound), rounds: perRound, floorRps: rounds.floor.map((r) => r.rps) });
          console.log(`${s.name} [API / floor per round]: ${perRound.map((x) => `${(100 * x).toFixed(1)} %`).join(', ')}`);
        }
        for (const [side] of sides) {
          const sorted = [...rounds[side]].sort((a, b) => a.rps - b.rps);
          const median = { ...sorted[Math.floor(sorted.length / 2)]!, errors: sorted.reduce((n, r) => n + r.errors, 0) };
          rows.push(median);
          console.log(
            `${s.name} [${side}, ${connections} conn]: ${median.rps.toFixed(0)} req/s, p50 / p99 ${latency(median)} ms (rounds: ${rounds[side].map((r) => r.rps.toFixed(0)).join(', ')} req/s)`,
          );
        }
      }
    }
    const out = path.join(__dirname, '../results/catalog.md');
    mkdirSync(path.dirname(out), { recursive: true });
    const rss = rssAtEnd(
      [
        ['API', servers[0]!.pid],
        ['API without cache', servers[1]!.pid],
        ['baseline', servers[2]!.pid],
      ],
      'no worker runs in this bench',
    );
    const end = { rss: processMemory(servers[0]!.pid!)?.rss ?? NaN, seconds: (Date.now() - apiLastRequestAt) / 1000 };
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, apiLastRequestAt + QUIET_SECONDS * 1000 - Date.now())));
    const memory = `${rss} ${memoryAgainstBudget(idleRss, end, processMemory(servers[0]!.pid!)?.rss ?? NaN)}`;
    console.log(memory);
    // What that RSS is made of, printed by each API process (for the reading of the results).
    for (const api of servers.slice(0, 2)) api.kill('SIGUSR2');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const text = report(rows, list, { before, after: os.loadavg(), cpu: cpuShare(ticks, cpuTicks()) }, floor, shares, memory);
    // The results file holds whole runs only: a run of some scenarios prints its report.
    if (list.length < all.length) console.log(`\n${text}`);
    else {
      writeFileSync(out, text);
      console.log(`\nwritten to ${path.relative(process.cwd(), out)}`);
    }
  } finally {
    for (const server of [...servers, floorServer]) server?.kill('SIGTERM');
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
