// Catalog search's service time against catalog size, with the sizes measured in alternation so a
// shared host's load falls on every size alike (growth.ts measures one size after another, minutes
// apart). Needs the growth databases kept by `BENCH_KEEP=1 … bench/catalog/growth.ts` for each size in
// BENCH_GROWTH_SIZES. Each round runs, on each size in turn, one connection, through the service
// (`searchCatalog`: the ranking, then the page's items, as the uncached API does), BENCH_ROUND_REQUESTS
// (default 40) requests of each workload of growth.ts: the 72 misspellings (relevance) and
// price-sorted searches of real names drawn Zipf(1.0), pages 1-3. Prints p50 / p99 per size and the
// growth from the smallest to the largest.
//   BENCH_GROWTH_SIZES=10000,100000,1000000 node -r ts-node/register bench/catalog/growth-interleaved.ts
import type { DataSource } from 'typeorm';
import misspellings from '../../data/search/misspellings.json';
import { createDataSource } from '../../src/db/data-source';
import { searchCatalog } from '../../src/services/search/catalog-search';
import type { CatalogQuery } from '../../src/services/search/catalog-ranking';
import { prng } from '../../test/support/random';
import { zipf } from './workload';

const SIZES = (process.env.BENCH_GROWTH_SIZES ?? '10000,100000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PER_ROUND = Number(process.env.BENCH_ROUND_REQUESTS ?? 40);
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const WORKLOADS = ['typo search (relevance)', 'catalog search by price'] as const;

const urlOf = (items: number) => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/mts_bench_growth_${items}`;
  return url.toString();
};

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

async function main(): Promise<void> {
  const dbs: DataSource[] = [];
  for (const size of SIZES)
    dbs.push(await createDataSource({ url: urlOf(size), poolSize: 1, applicationName: 'bench-interleaved' }).initialize());
  // The same names, typos and pages on every size: the real names are in every catalog.
  const names: string[] = (await dbs[0]!.query(`SELECT name FROM catalog_names ORDER BY md5(name)`)).map((r: { name: string }) => r.name);
  const random = prng(11);
  const name = zipf(names.length, 1.0, random);
  const typos = (misspellings as Array<[string, string]>).map(([typo]) => typo);
  const draw: Record<(typeof WORKLOADS)[number], (n: number) => CatalogQuery> = {
    'typo search (relevance)': (n) => ({ q: typos[n % typos.length]!, sort: 'relevance', page: 1, size: 20 }),
    'catalog search by price': () => ({ q: names[name()]!, sort: 'price', page: 1 + Math.floor(random() * 3), size: 20 }),
  };
  const times = WORKLOADS.map(() => SIZES.map((): number[] => []));
  let n = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [w, workload] of WORKLOADS.entries()) {
      const queries = Array.from({ length: PER_ROUND }, () => draw[workload]((n += 1)));
      for (const [s, db] of dbs.entries()) {
        for (const query of queries) {
          const started = process.hrtime.bigint();
          await searchCatalog(db, query);
          times[w]![s]!.push(Number(process.hrtime.bigint() - started) / 1e6);
        }
      }
    }
    console.log(`round ${round + 1} of ${ROUNDS}`);
  }
  console.log(`\n| workload | ${SIZES.map((s) => `${s.toLocaleString('en-GB')} items p50 / p99 ms`).join(' | ')} | p99 growth |`);
  console.log(`|---|${SIZES.map(() => '---:').join('|')}|---:|`);
  for (const [w, workload] of WORKLOADS.entries()) {
    const cells = times[w]!.map((xs) => `${quantile(xs, 0.5).toFixed(1)} / ${quantile(xs, 0.99).toFixed(1)}`);
    const growth = quantile(times[w]!.at(-1)!, 0.99) / quantile(times[w]![0]!, 0.99);
    console.log(`| ${workload} | ${cells.join(' | ')} | × ${growth.toFixed(2)} |`);
  }
  for (const db of dbs) await db.destroy();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
