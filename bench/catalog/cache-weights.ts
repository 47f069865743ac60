// What a Discover cache entry weighs in memory against what its byte budget counts for it
// (docs/discover.md, "How much is kept"): item views (JsonCache), an item's kept listings
// (ItemListings.bytes) and a ranking (rankingBytes), each held many times over in this process and
// weighed as heap used + external memory after full collections, plus malloc's records of each
// kept Buffer, which neither counts (measured first: KEPT_BUFFER_NATIVE_BYTES). Needs the benchmark
// catalog (generate.ts), the build (npm run build) and V8's gc exposed; writes
// bench/results/catalog-cache-weights.md.
//   npm run build && node --expose-gc -r ts-node/register bench/catalog/cache-weights.ts
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createDataSource } from '../../src/db/data-source';
import { KEPT_BUFFER_NATIVE_BYTES } from '../../src/json-bytes';
import { loadItems } from '../../src/services/catalog/item-view';
import { rankCatalog } from '../../src/services/search/catalog-ranking';
import { rankingBytes } from '../../src/services/search/catalog-search';
import { ItemListings } from '../../src/services/search/item-listings';
import { JsonCache } from '../../src/services/search/json-cache';
import { SearchCache } from '../../src/services/listings/search-cache';
import { compileToDist } from '../support';
import { BENCH, benchDatabaseUrl } from './settings';

const ITEMS = 20_000;
const LISTED_ITEMS = 3_000;
const POPULAR_COPIES = 20;
const RANKINGS = 1_500;
/**
 * Item views per load: a bulk lookup's misses, or a page of search hits (20). The records of each
 * load's one allocation are spread over its items; 20 weighs the common small load.
 */
const ITEMS_PER_LOAD = 20;

const gc = (globalThis as { gc?: () => void }).gc;

/** Heap used + external memory after full collections. */
function held(): number {
  gc!();
  gc!();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}

/**
 * malloc's records of a kept Buffer, in bytes (`kept-buffer-native.ts`, compiled and run in a fresh
 * process of its own).
 */
function nativeBytesPerKeptBuffer(): number {
  const [script] = compileToDist(['bench/catalog/kept-buffer-native.ts']);
  return Number(execFileSync(process.execPath, ['--expose-gc', script!], { encoding: 'utf8' }).trim());
}

/**
 * Bytes held per entry once `fill` has filled its cache (with `native` bytes for each Buffer it
 * keeps), and what the cache counted per entry.
 */
async function weigh(
  native: number,
  fill: () => Promise<{ cache: unknown; entries: number; buffers: number; counted: number }>,
): Promise<{ entries: number; held: number; counted: number }> {
  const before = held();
  const filled = await fill();
  const after = held();
  // Still referenced here, so the collections above could not take the cache.
  if (!filled.cache) throw new Error('nothing was filled');
  const bytes = after - before + filled.buffers * native;
  return { entries: filled.entries, held: bytes / filled.entries, counted: filled.counted / filled.entries };
}

async function main(): Promise<void> {
  if (!gc) throw new Error('run with node --expose-gc');
  const native = nativeBytesPerKeptBuffer();
  const db = createDataSource({ url: benchDatabaseUrl(), poolSize: 4, applicationName: 'bench-cache-weights' });
  await db.initialize();
  const urns: string[] = (await db.query(`SELECT urn FROM catalog_items ORDER BY md5(urn) LIMIT $1`, [ITEMS])).map(
    (r: { urn: string }) => r.urn,
  );
  const names: string[] = (
    await db.query(`SELECT name FROM (SELECT DISTINCT name FROM catalog_items) n ORDER BY md5(name) LIMIT $1`, [RANKINGS])
  ).map((r: { name: string }) => r.name);
  const forever = () => 600_000;

  // Every cache under test counts as production does; a budget it never reaches keeps everything.
  // One kept Buffer per segment of item views (JsonCache), per item's listings (ItemListings); none per ranking.
  const items = await weigh(native, async () => {
    let counted = 0;
    const cache = new JsonCache((keys) => loadItems(db, keys), forever, Number.MAX_SAFE_INTEGER);
    for (let i = 0; i < urns.length; i += ITEMS_PER_LOAD) counted += (await cache.getMany(urns.slice(i, i + ITEMS_PER_LOAD))).length;
    // JsonCache counts each entry's key and JSON + ENTRY_OVERHEAD_BYTES and each segment's records: read back what it holds.
    const { bytes, segments } = cache.weight();
    return { cache, entries: counted, buffers: segments, counted: bytes };
  });
  const listingsOf = (keys: string[]) =>
    weigh(native, async () => {
      const cache = new SearchCache<ItemListings>(forever, { bytes: Number.MAX_SAFE_INTEGER, sizeOf: (l) => l.bytes });
      let counted = 0;
      for (let i = 0; i < keys.length; i += 50)
        for (const l of await Promise.all(
          keys.slice(i, i + 50).map((urn, n) => cache.get(`${urn}#${i + n}`, '0', () => ItemListings.load(db, urn))),
        ))
          counted += l.bytes;
      return { cache, entries: keys.length, buffers: keys.length, counted };
    });
  const listings = await listingsOf(urns.slice(0, LISTED_ITEMS));
  const popular = await listingsOf(Array.from({ length: POPULAR_COPIES }, () => BENCH.popularUrn));
  const rankings = await weigh(native, async () => {
    const cache = new SearchCache<Awaited<ReturnType<typeof rankCatalog>>>(forever, {
      bytes: Number.MAX_SAFE_INTEGER,
      sizeOf: rankingBytes,
    });
    let counted = 0;
    for (let i = 0; i < names.length; i += 20)
      await Promise.all(
        names.slice(i, i + 20).map(async (q) => {
          const key = JSON.stringify({ q, sort: 'relevance', page: 1, size: 20 });
          const ranking = await cache.get(key, '0', () => rankCatalog(db, { q, sort: 'relevance', page: 1, size: 20 }));
          counted += rankingBytes(ranking, key);
        }),
      );
    return { cache, entries: names.length, buffers: 0, counted };
  });
  await db.destroy();

  const row = (what: string, w: { entries: number; held: number; counted: number }) =>
    `| ${what} | ${w.entries.toLocaleString('en-GB')} | ${w.held.toFixed(0)} | ${w.counted.toFixed(0)} | ${((100 * w.counted) / w.held).toFixed(0)} % |`;
  const text = [
    '# Discover caches: what an entry weighs against what its budget counts',
    '',
    `Run ${new Date().toISOString()}, Node ${process.version}: \`npm run build && node --expose-gc -r ts-node/register bench/catalog/cache-weights.ts\` on the benchmark catalog ` +
      '(generate.ts). Each cache filled as production fills it, in this process, and weighed as heap used + external memory after full collections, per entry, ' +
      "plus malloc's records of each Buffer it keeps, which neither counts.",
    '',
    `malloc's records of a kept Buffer (toKeptBytes), beyond its bytes: ${native.toFixed(0)} bytes each, measured in a fresh process as the growth of ` +
      `malloc's main heap ([heap] in /proc/self/smaps) less the bytes of 50,000 Buffers of 400–3,000 bytes made in a row (kept-buffer-native.ts); ` +
      `the budgets count ${KEPT_BUFFER_NATIVE_BYTES} (KEPT_BUFFER_NATIVE_BYTES).`,
    '',
    '| entries | count | held, bytes each | counted, bytes each | counted / held |',
    '|---|---:|---:|---:|---:|',
    row('item views (JsonCache)', items),
    row('kept listings, varied items (ItemListings)', listings),
    row(`kept listings, the popular item (${BENCH.popularListings} listings, the live ones kept)`, popular),
    row('rankings, relevance, a page of 20 (rankingBytes)', rankings),
    '',
  ].join('\n');
  const out = path.join(__dirname, '../results/catalog-cache-weights.md');
  writeFileSync(out, text);
  console.log(`${text}\nwritten to ${path.relative(process.cwd(), out)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
