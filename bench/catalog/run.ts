// `node -r ts-node/register bench/catalog/run.ts` (after generate.ts): each scenario against the
// baseline and then the API, 50 connections, same run, loopback only; writes bench/results/catalog.md.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { BENCH, benchDatabaseUrl } from './settings';

interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  target: string;
}

interface Row {
  scenario: string;
  side: 'baseline' | 'api';
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`${url} did not answer`);
}

async function scenarios(): Promise<Scenario[]> {
  const pg = new Client({ connectionString: benchDatabaseUrl() });
  await pg.connect();
  // A fixed, scattered sample: the same 200 URNs on every run.
  const urns = (await pg.query(`SELECT urn FROM catalog_items ORDER BY md5(urn) LIMIT 200`)).rows.map((r) => r.urn);
  await pg.end();
  return [
    { name: 'bulk lookup, 200 URNs', method: 'POST', path: '/search/lookup/bulk', body: JSON.stringify({ urns }), target: 'p99 < 50 ms' },
    { name: 'GET /search?q=charzard', method: 'GET', path: '/search?q=charzard', target: '—' },
    { name: 'POST /listings/item, popular item', method: 'POST', path: '/listings/item', body: JSON.stringify({ urn: BENCH.popularUrn }), target: 'p99 < 50 ms' },
  ];
}

async function load(port: number, s: Scenario, duration: number): Promise<autocannon.Result> {
  return autocannon({
    url: `http://127.0.0.1:${port}${s.path}`,
    method: s.method,
    body: s.body,
    headers: s.body ? { 'content-type': 'application/json' } : {},
    connections: BENCH.connections,
    duration,
  });
}

/** Each side must answer correctly before it is measured; a fast wrong answer proves nothing. */
async function check(port: number, s: Scenario): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${port}${s.path}`, { method: s.method, body: s.body, headers: s.body ? { 'content-type': 'application/json' } : {} });
  const body = (await res.json()) as unknown[] | { items?: unknown[]; hits?: unknown[] };
  const size = Array.isArray(body) ? body.length : (body.items ?? body.hits ?? []).length;
  if (res.status !== 200 || size === 0) throw new Error(`${s.name} on port ${port}: status ${res.status}, ${size} results`);
}

function report(rows: Row[], list: Scenario[]): string {
  const lines = [
    '# Catalog / Discover benchmark',
    '',
    `Run ${new Date().toISOString()} on ${os.cpus().length} CPU(s) (${os.cpus()[0]?.model ?? 'unknown'}), shared with other work; ` +
      `PostgreSQL, server and load generator on the same machine, loopback only.`,
    `Catalog: ≥ 100,000 items, ≥ 500,000 listings (bench/catalog/generate.ts). autocannon, ${BENCH.connections} connections, ` +
      `${BENCH.durationSeconds} s per measurement after a 3 s warm-up. Baseline = bare Koa + one SQL statement via pg (bench/catalog/baseline.ts).`,
    '',
    '| scenario | baseline req/s | API req/s | API / baseline | baseline p50 / p99 (ms) | API p50 / p99 (ms) | target | errors |',
    '|---|---:|---:|---:|---:|---:|---|---:|',
  ];
  for (const s of list) {
    const b = rows.find((r) => r.scenario === s.name && r.side === 'baseline')!;
    const a = rows.find((r) => r.scenario === s.name && r.side === 'api')!;
    lines.push(
      `| ${s.name} | ${b.rps.toFixed(0)} | ${a.rps.toFixed(0)} | ${((a.rps / b.rps) * 100).toFixed(0)} % | ${b.p50} / ${b.p99} | ${a.p50} / ${a.p99} | ≥ 50 %; ${s.target} | ${b.errors + a.errors} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const server = spawn(process.execPath, ['-r', 'ts-node/register', path.join(__dirname, 'server.ts')], { stdio: 'inherit' });
  try {
    await waitFor(`http://127.0.0.1:${BENCH.apiPort}/healthz`);
    await waitFor(`http://127.0.0.1:${BENCH.baselinePort}/`);
    const list = await scenarios();
    const rows: Row[] = [];
    for (const s of list) {
      for (const [side, port] of [['baseline', BENCH.baselinePort], ['api', BENCH.apiPort]] as const) {
        await check(port, s);
        await load(port, s, 3);
        const r = await load(port, s, BENCH.durationSeconds);
        rows.push({ scenario: s.name, side, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx + r.timeouts });
        console.log(`${s.name} [${side}]: ${r.requests.average.toFixed(0)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms`);
      }
    }
    const out = path.join(__dirname, '../results/catalog.md');
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, report(rows, list));
    console.log(`\nwritten to ${path.relative(process.cwd(), out)}`);
  } finally {
    server.kill('SIGTERM');
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
