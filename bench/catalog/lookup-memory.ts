// What one bulk lookup's work costs against how much the item cache holds (docs/discover.md,
// "What is behind the figures"): the same code, the same 200-URN requests, over caches of 1k to
// 1M item views. Each request is what the API does between parsing the body and writing the
// answer: `BulkLookup.lookup` (the item cache's `getMany`, 200 map lookups and entries read) and
// `AnswerBuffers.assemble` (the found views copied into one buffer). Keys are drawn uniformly (every
// size touches its whole cache) and by Zipf's law as the catalog benchmark draws them; the views
// are synthetic, about 900 bytes like the catalog's.
// No database: every view is loaded once before the clock starts. Single process, one request at
// a time; writes bench/results/catalog-lookup-memory.md.
//   node -r ts-node/register bench/catalog/lookup-memory.ts
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AnswerBuffers } from '../../src/http/answer-buffers';
import { BulkLookup } from '../../src/services/search/bulk-lookup';
import type { ItemView } from '../../src/services/catalog/item-view';
import { JsonCache } from '../../src/services/search/json-cache';
import { prng } from '../../test/support/random';
import { zipf } from './workload';

const SIZES = (process.env.BENCH_LOOKUP_SIZES ?? '1000,10000,100000,1000000').split(',').map(Number);
const URNS_PER_REQUEST = 200;
const REQUESTS = 4000;
const ROUNDS = 3;

/** A synthetic item view, about 900 bytes of JSON like the catalog's. */
const view = (urn: string, n: number): ItemView => ({
  urn,
  slug: urn.replaceAll('/', '-'),
  type: 'card',
  game: 'pokemon',
  title: `Card ${n}`,
  name: `Card ${n}`,
  rarity: 'Common',
  number: String(n % 300),
  description: 'x'.repeat(180),
  set: {
    name: `Set ${n % 700}`,
    urn: `pokemon/set-${n % 700}`,
    counts: { printed: 102, total: 102 },
    references: [],
    size: 102,
    symbol: { url: null },
    released: '1999-01-09',
  },
  series: { name: 'Base', urn: 'pokemon/base' },
  images: [{ urn: `${urn}/front`, orientation: 'front', url: `https://images.example/${urn}/front.png`, illustrator: 'Someone' }],
  alternatives: [],
  metadata: [{ name: 'hp', value: '60', detail: [] }],
  price: 100 + (n % 997),
  available: n % 13,
  quantity: n % 13,
  min: { price: 100 + (n % 997) },
  max: { price: 900 + (n % 997) },
});

type Draws = 'uniform' | 'Zipf';

async function measure(size: number, draws: Draws): Promise<number[]> {
  const urns = Array.from({ length: size }, (_, n) => `pokemon/set-${n % 700}/s${(n * 7919) % size}/${n}`);
  const cache = new JsonCache(
    async (keys: string[]) => new Map(keys.map((key) => [key, view(key, Number(key.slice(key.lastIndexOf('/') + 1)))])),
    () => 3_600_000,
    Number.MAX_SAFE_INTEGER,
  );
  // Loaded in loads of 200, as misses of bulk lookups are.
  for (let at = 0; at < size; at += URNS_PER_REQUEST) await cache.getMany(urns.slice(at, at + URNS_PER_REQUEST));
  const lookup = new BulkLookup(cache);
  const buffers = new AnswerBuffers(8 * 1024 * 1024);
  const random = prng(size);
  const rank = draws === 'Zipf' ? zipf(size, 1.0, random) : () => Math.floor(random() * size);
  // Request bodies as the API receives them: URN strings fresh from JSON.parse, not the cache's own.
  const bodies = Array.from({ length: 500 }, () => JSON.stringify(Array.from({ length: URNS_PER_REQUEST }, () => urns[rank()])));
  const perRequestUs: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const started = process.hrtime.bigint();
    for (let n = 0; n < REQUESTS; n += 1) {
      const { json } = await lookup.lookup(JSON.parse(bodies[n % bodies.length]!) as string[]);
      buffers.assemble(json).sent?.();
    }
    perRequestUs.push(Number(process.hrtime.bigint() - started) / 1000 / REQUESTS);
  }
  return perRequestUs;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const rows: string[] = [];
  for (const size of SIZES) {
    const cells: string[] = [];
    for (const draws of ['uniform', 'Zipf'] as const) {
      const perRequestUs = await measure(size, draws);
      cells.push(
        `${median(perRequestUs).toFixed(0)} (${(median(perRequestUs) / URNS_PER_REQUEST).toFixed(2)}; rounds ${perRequestUs.map((us) => us.toFixed(0)).join(', ')})`,
      );
    }
    const line = `| ${size.toLocaleString('en')} | ${cells.join(' | ')} |`;
    console.log(line);
    rows.push(line);
  }
  const text = [
    '# Bulk lookup: its work against the size of the item cache',
    '',
    `Run ${new Date().toISOString()} on ${os.cpus().length} CPU(s) (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}: \`node -r ts-node/register bench/catalog/lookup-memory.ts\`.`,
    `Per request: JSON.parse of ${URNS_PER_REQUEST} URNs, BulkLookup.lookup over a JsonCache holding every item, AnswerBuffers.assemble of the answer;`,
    `${REQUESTS} requests per round, ${ROUNDS} rounds, URNs drawn uniformly over the cache or by Zipf's law (s = 1, as bench/catalog/workload.ts);`,
    'synthetic views of about 900 bytes. Each cell: µs per request in the median round (µs per URN; every round).',
    '',
    '| items kept | uniform draws | Zipf draws |',
    '|---:|---|---|',
    ...rows,
    '',
  ].join('\n');
  const out = path.join(__dirname, '../results/catalog-lookup-memory.md');
  writeFileSync(out, text);
  console.log(`written to ${path.relative(process.cwd(), out)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
