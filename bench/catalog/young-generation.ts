// `npm run build && node -r ts-node/register bench/catalog/young-generation.ts` (after generate.ts):
// the cached API target of the catalog benchmark under V8's default young generation and under
// the API's flags (src/api-node-flags.json), alternately, BENCH_REPEATS times each (default 2).
// Each run: varied bulk lookups (Zipf, 50 connections) for a 20 s warm-up, then 3 rounds of 5 s
// with 14 s idle before each, as the catalog benchmark's alternating rounds leave the API idle.
// `--trace-gc` counts the full collections (Mark-Compact) during the rounds. RSS is read once the
// API has started (idle) and at the end. BENCH_YOUNG_VARIANTS="<flags>;<flags>" measures other
// flag sets instead ("defaults" for none; a `NAME=value` word is set in the API's environment,
// e.g. glibc's MALLOC_MMAP_THRESHOLD_). BENCH_YOUNG_MIX=1 runs the catalog benchmark's whole
// mix instead of bulk lookups alone: each warm-up and each round is varied bulk lookups, then
// catalog searches, then listing searches, so the listing and ranking caches fill as they do there.
// Writes bench/results/catalog-young-generation.md (with the mix: catalog-young-generation-mix.md).
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { Client } from 'pg';
import API_NODE_FLAGS from '../../src/api-node-flags.json';
import { latency, runLoad, type LoadResult } from '../load';
import { compileToDist, endsWithBench, rss, stopChild, waitForHttp } from '../support';
import { BENCH, benchDatabaseUrl, QUIET_SECONDS } from './settings';
import { bulkLookups, cycle, listingSearches, searches, take, type Workload } from './workload';

const REPEATS = Number(process.env.BENCH_REPEATS ?? 2);
const WARM_SECONDS = 20;
const ROUNDS = 3;
const ROUND_SECONDS = 5;
const IDLE_SECONDS = 14;
const MIX = process.env.BENCH_YOUNG_MIX === '1';

/** A varied workload and the request it sends. */
interface Load {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  workload: Workload;
}

/** A variant's words: V8 flags, and `NAME=value` words set in the API's environment (glibc's `MALLOC_*` tunables, say). */
const VARIANTS: Array<{ name: string; flags: string[]; env: Record<string, string> }> = (
  process.env.BENCH_YOUNG_VARIANTS?.split(';') ?? ['defaults', API_NODE_FLAGS.join(' ')]
).map((variant) => {
  if (variant.trim() === 'defaults') return { name: "V8's defaults", flags: [], env: {} };
  const words = variant.trim().split(/\s+/);
  const assignments = words.map((word) => /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(word));
  return {
    name: variant.trim(),
    flags: words.filter((_, n) => !assignments[n]),
    env: Object.fromEntries(assignments.flatMap((match) => (match ? [[match[1]!, match[2]!]] : []))),
  };
});

interface Run {
  variant: string;
  /** Per round, one result per load, in the order of `loads`. */
  rounds: LoadResult[][];
  /** Full collections during the measured rounds (their idle gaps included). */
  markCompacts: number;
  scavenges: number;
  idleRssMiB: number;
  rssMiB: number;
  /** RSS once the API has been idle past its young-generation trim (src/http/young-generation-trim.ts). */
  quietRssMiB: number;
}

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

async function measure(variant: (typeof VARIANTS)[number], loads: Load[], seed: number): Promise<Run> {
  const [server] = compileToDist(['server.ts', 'baseline.ts', 'settings.ts'].map((f) => `bench/catalog/${f}`));
  const child: ChildProcess = endsWithBench(
    spawn(process.execPath, ['--trace-gc', ...variant.flags, server!, 'api'], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...variant.env },
    }),
  );
  let counting = false;
  const counts = { markCompacts: 0, scavenges: 0 };
  // One --trace-gc line per collection.
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    if (!counting) return;
    if (line.includes('Mark-Compact')) counts.markCompacts += 1;
    else if (line.includes('Scavenge')) counts.scavenges += 1;
  });
  try {
    await waitForHttp(`http://127.0.0.1:${BENCH.apiPort}/healthz`);
    await sleep(2);
    const idleRssMiB = rss(child.pid!).now;
    // Fresh draws for every load, as the catalog benchmark's rounds have.
    const round = async (n: number, seconds: number) => {
      const results: LoadResult[] = [];
      for (const load of loads)
        results.push(
          await runLoad({
            url: `http://127.0.0.1:${BENCH.apiPort}${load.path}`,
            method: load.method,
            headers: { 'content-type': 'application/json' },
            connections: BENCH.connections,
            durationSeconds: seconds,
            next: cycle(take(load.workload(seed * 100 + n), 15_000)),
          }),
        );
      return results;
    };
    await round(0, WARM_SECONDS);
    counting = true;
    const rounds: LoadResult[][] = [];
    for (let n = 1; n <= ROUNDS; n += 1) {
      await sleep(IDLE_SECONDS);
      rounds.push(await round(n, ROUND_SECONDS));
    }
    const rssMiB = rss(child.pid!).now;
    await sleep(QUIET_SECONDS);
    return { variant: variant.name, rounds, ...counts, idleRssMiB, rssMiB, quietRssMiB: rss(child.pid!).now };
  } finally {
    await stopChild(child);
  }
}

function report(runs: Run[], loads: Load[]): string {
  const rows = runs.map((r) => {
    const rps = r.rounds.map((x) => x.map((l) => Math.round(l.rps)).join(' / ')).join(', ');
    const p99 = r.rounds.map((x) => x.map((l) => latency(l).split(' / ')[1]).join(' / ')).join(', ');
    const [idle, end, quiet] = [r.idleRssMiB, r.rssMiB, r.quietRssMiB].map(Math.round);
    return `| ${r.variant} | ${rps} | ${p99} | ${r.markCompacts} | ${r.scavenges} | ${idle} MiB | ${end} MiB | ${end! - idle!} MiB | ${quiet! - idle!} MiB |`;
  });
  return [
    '# Catalog API: V8 young generation, flag sets side by side',
    '',
    `Run ${new Date().toISOString()} on ${os.cpus().length} cores, Node ${process.version}: \`${MIX ? 'BENCH_YOUNG_MIX=1 ' : ''}node -r ts-node/register bench/catalog/young-generation.ts\`.`,
    `The cached API target of the catalog benchmark (bench/catalog/server.ts, compiled), varied ${loads.map((l) => l.name).join(', then ')}`,
    `(Zipf over the catalog) at ${BENCH.connections} connections: ${WARM_SECONDS} s of warm-up of each, then ${ROUNDS} rounds of ${ROUND_SECONDS} s of each, each round after ${IDLE_SECONDS} s idle`,
    `(the catalog benchmark leaves the API idle while the baseline and the uncached API take their rounds). The variants`,
    `alternate, ${REPEATS} runs each. Mark-compacts and scavenges are counted by \`--trace-gc\` from the first idle gap on. RSS is read`,
    `at the end of the last round and again ${QUIET_SECONDS} s later, past the API's idle trim of its young generation (src/http/young-generation-trim.ts,`,
    `which runs only in a process started with --expose-gc).`,
    '',
    `| V8 flags | req/s per round${loads.length > 1 ? ` (${loads.map((l) => l.name).join(' / ')})` : ''} | p99 ms per round | mark-compacts | scavenges | RSS idle | RSS at end | end − idle | ${QUIET_SECONDS} s later − idle |`,
    '|---|---|---|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const pg = new Client({ connectionString: benchDatabaseUrl() });
  await pg.connect();
  // Popularity ranks as the catalog benchmark draws them (run.ts).
  const urns: string[] = (await pg.query(`SELECT urn FROM catalog_items ORDER BY md5(urn)`)).rows.map((r) => r.urn);
  const names: string[] = (await pg.query(`SELECT name FROM (SELECT DISTINCT name FROM catalog_items) n ORDER BY md5(name)`)).rows.map(
    (r) => r.name,
  );
  await pg.end();
  const bulk: Load = { name: 'bulk lookups of 200 URNs', method: 'POST', path: '/search/lookup/bulk', workload: bulkLookups(urns) };
  const loads: Load[] = MIX
    ? [
        bulk,
        { name: 'catalog searches', method: 'GET', path: '/search', workload: searches(names) },
        { name: 'listing searches', method: 'POST', path: '/listings/item', workload: listingSearches(urns) },
      ]
    : [bulk];
  const runs: Run[] = [];
  for (let repeat = 0; repeat < REPEATS; repeat += 1) {
    for (const variant of VARIANTS) {
      const run = await measure(variant, loads, runs.length + 1);
      console.log(
        `${run.variant}: ${run.rounds.map((r) => r.map((l) => Math.round(l.rps)).join(' / ')).join(', ')} req/s, ${run.markCompacts} mark-compacts, RSS ${run.idleRssMiB.toFixed(0)} → ${run.rssMiB.toFixed(0)} → ${run.quietRssMiB.toFixed(0)} MiB`,
      );
      runs.push(run);
    }
  }
  const out = path.join(__dirname, `../results/catalog-young-generation${MIX ? '-mix' : ''}.md`);
  writeFileSync(out, report(runs, loads));
  console.log(`written to ${path.relative(process.cwd(), out)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
