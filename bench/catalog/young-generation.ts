// `npm run build && node -r ts-node/register bench/catalog/young-generation.ts` (after generate.ts):
// the cached API target of the catalog benchmark under V8's default young generation and under
// the API's flags (src/api-node-flags.json), alternately, BENCH_REPEATS times each (default 2).
// Each run: varied bulk lookups (Zipf, 50 connections) for a 20 s warm-up, then 3 rounds of 5 s
// with 14 s idle before each, as the catalog benchmark's alternating rounds leave the API idle.
// `--trace-gc` counts the full collections (Mark-Compact) during the rounds. Writes
// bench/results/catalog-young-generation.md.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { Client } from 'pg';
import API_NODE_FLAGS from '../../src/api-node-flags.json';
import { latency, runLoad, type LoadResult } from '../load';
import { compileToDist, endsWithBench, rss, stopChild, waitForHttp } from '../support';
import { BENCH, benchDatabaseUrl } from './settings';
import { bulkLookups, cycle, take, type Workload } from './workload';

const REPEATS = Number(process.env.BENCH_REPEATS ?? 2);
const WARM_SECONDS = 20;
const ROUNDS = 3;
const ROUND_SECONDS = 5;
const IDLE_SECONDS = 14;

const VARIANTS: Array<{ name: string; flags: string[] }> = [
  { name: "V8's defaults", flags: [] },
  { name: API_NODE_FLAGS.join(' '), flags: API_NODE_FLAGS },
];

interface Run {
  variant: string;
  rounds: LoadResult[];
  /** Full collections during the measured rounds (their idle gaps included). */
  markCompacts: number;
  scavenges: number;
  rssMiB: number;
}

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

async function measure(variant: (typeof VARIANTS)[number], workload: Workload, seed: number): Promise<Run> {
  const [server] = compileToDist(['server.ts', 'baseline.ts', 'settings.ts'].map((f) => `bench/catalog/${f}`));
  const child: ChildProcess = endsWithBench(
    spawn(process.execPath, ['--trace-gc', ...variant.flags, server!, 'api'], {
      stdio: ['ignore', 'pipe', 'inherit'],
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
    // Fresh draws for every load, as the catalog benchmark's rounds have.
    const load = (n: number, seconds: number) =>
      runLoad({
        url: `http://127.0.0.1:${BENCH.apiPort}/search/lookup/bulk`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        connections: BENCH.connections,
        durationSeconds: seconds,
        next: cycle(take(workload(seed * 100 + n), 15_000)),
      });
    await load(0, WARM_SECONDS);
    counting = true;
    const rounds: LoadResult[] = [];
    for (let n = 1; n <= ROUNDS; n += 1) {
      await sleep(IDLE_SECONDS);
      rounds.push(await load(n, ROUND_SECONDS));
    }
    return { variant: variant.name, rounds, ...counts, rssMiB: rss(child.pid!).now };
  } finally {
    await stopChild(child);
  }
}

function report(runs: Run[]): string {
  const rows = runs.map((r) => {
    const rps = r.rounds.map((x) => Math.round(x.rps)).join(', ');
    const p99 = r.rounds.map((x) => latency(x).split(' / ')[1]).join(', ');
    return `| ${r.variant} | ${rps} | ${p99} | ${r.markCompacts} | ${r.scavenges} | ${Math.round(r.rssMiB)} MiB |`;
  });
  return [
    '# Catalog API: V8 young generation, defaults against the API flags',
    '',
    `Run ${new Date().toISOString()} on ${os.cpus().length} cores, Node ${process.version}: \`node -r ts-node/register bench/catalog/young-generation.ts\`.`,
    `The cached API target of the catalog benchmark (bench/catalog/server.ts, compiled), varied bulk lookups of 200 URNs drawn`,
    `Zipf over the catalog at ${BENCH.connections} connections: ${WARM_SECONDS} s of warm-up, then ${ROUNDS} rounds of ${ROUND_SECONDS} s, each after ${IDLE_SECONDS} s idle`,
    `(the catalog benchmark leaves the API idle while the baseline and the uncached API take their rounds). The variants`,
    `alternate, ${REPEATS} runs each. Mark-compacts and scavenges are counted by \`--trace-gc\` from the first idle gap on.`,
    '',
    '| V8 flags | req/s per round | p99 ms per round | mark-compacts | scavenges | RSS at end |',
    '|---|---|---|---:|---:|---:|',
    ...rows,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const pg = new Client({ connectionString: benchDatabaseUrl() });
  await pg.connect();
  const urns: string[] = (await pg.query(`SELECT urn FROM catalog_items ORDER BY md5(urn)`)).rows.map((r) => r.urn);
  await pg.end();
  const workload = bulkLookups(urns);
  const runs: Run[] = [];
  for (let repeat = 0; repeat < REPEATS; repeat += 1) {
    for (const variant of VARIANTS) {
      const run = await measure(variant, workload, runs.length + 1);
      console.log(`${run.variant}: ${run.rounds.map((r) => Math.round(r.rps)).join(', ')} req/s, ${run.markCompacts} mark-compacts`);
      runs.push(run);
    }
  }
  const out = path.join(__dirname, '../results/catalog-young-generation.md');
  writeFileSync(out, report(runs));
  console.log(`written to ${path.relative(process.cwd(), out)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
