// Does bounded relevance ranking hold on a big catalog? On the bench database (BENCH_DATABASE_URL;
// a growth database kept with BENCH_KEEP=1 for the million), ranks each query twice through the
// service: every match ranked (the ranking before candidate sets), and as served (a bounded candidate
// set beyond RANK_MATCHES_UP_TO matches). Prints, for each:
//   - the misspelling set (data/search/misspellings.json): top-1 hit rate (the first item's name is
//     the intended card's, as test/api/search-misspellings.test.ts asks on the demo catalog);
//   - the relevance test set (the queries of test/api/search.test.ts's relevance cases): what comes
//     first, and how many of the first page's 20 items the two rankings share.
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/mts_bench_growth_1000000 node -r ts-node/register bench/catalog/relevance.ts
import misspellings from '../../data/search/misspellings.json';
import { createDataSource } from '../../src/db/data-source';
import { RANK_MATCHES_UP_TO, rankCatalog, type CatalogQuery } from '../../src/services/search/catalog-ranking';
import { benchDatabaseUrl } from './settings';

/** The relevance cases of test/api/search.test.ts and bench/catalog/explain.ts, with what must come first. */
const RELEVANCE: Array<[q: string, firstName: string, firstTitle: RegExp]> = [
  ['charzard', 'Charizard', /Charizard/],
  ['pikachu jungle', 'Pikachu', /Jungle/],
  ['pikachu', 'Pikachu', /Pikachu/],
  ['charizard base', 'Charizard', /Base/],
];

const EVERY = { rankMatchesUpTo: Number.MAX_SAFE_INTEGER };

async function main(): Promise<void> {
  const db = await createDataSource({ url: benchDatabaseUrl(), poolSize: 2, applicationName: 'bench-relevance' }).initialize();
  const query = (q: string, size = 20): CatalogQuery => ({ q, sort: 'relevance', page: 1, size });
  const nameOf = async (urn: string | undefined) =>
    urn ? ((await db.query(`SELECT name, title FROM catalog_items WHERE urn = $1`, [urn]))[0] as { name: string; title: string }) : null;
  const [{ items }] = await db.query(`SELECT count(*)::int AS items FROM catalog_items`);
  console.log(`${items} items; RANK_MATCHES_UP_TO = ${RANK_MATCHES_UP_TO}`);

  const hits = { every: 0, bounded: 0 };
  let beyond = 0;
  for (const [typo, expected] of misspellings as Array<[string, string]>) {
    const every = await rankCatalog(db, query(typo, 1), EVERY);
    const bounded = await rankCatalog(db, query(typo, 1));
    if (every.totalRelation === 'gte' || every.total > RANK_MATCHES_UP_TO) beyond += 1;
    if ((await nameOf(every.urns[0]))?.name === expected) hits.every += 1;
    if ((await nameOf(bounded.urns[0]))?.name === expected) hits.bounded += 1;
  }
  const n = misspellings.length;
  const rate = (h: number) => `${((100 * h) / n).toFixed(1)} % (${h}/${n})`;
  console.log(`misspellings (${beyond} of ${n} match more than ${RANK_MATCHES_UP_TO} items):`);
  console.log(`  top-1 hit rate, every match ranked: ${rate(hits.every)}; bounded candidates: ${rate(hits.bounded)}`);

  console.log('relevance set: q | matches | first (every match ranked) | first (bounded) | first page shared of 20');
  for (const [q, firstName, firstTitle] of RELEVANCE) {
    const every = await rankCatalog(db, query(q), EVERY);
    const bounded = await rankCatalog(db, query(q));
    const [a, b] = [await nameOf(every.urns[0]), await nameOf(bounded.urns[0])];
    const ok = (x: typeof a) => (x && x.name === firstName && firstTitle.test(x.title) ? 'ok' : 'MISS');
    const shared = bounded.urns.filter((u) => every.urns.includes(u)).length;
    console.log(
      `  ${q} | ${every.total}${every.totalRelation === 'gte' ? '+' : ''} | ${a?.title} ${ok(a)} | ${b?.title} ${ok(b)} | ${shared}`,
    );
  }
  await db.destroy();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
