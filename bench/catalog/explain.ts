// Prints EXPLAIN (ANALYZE, BUFFERS) of every statement the benchmarked Discover endpoints send,
// captured from the services themselves (bulk lookup, catalog search, listing search) on the bench database.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { DataSource, type Logger } from 'typeorm';
import { createDataSource } from '../../src/db/data-source';
import { loadItems } from '../../src/services/catalog/item-view';
import { searchCatalog } from '../../src/services/search/catalog-search';
import { ItemListings } from '../../src/services/search/item-listings';
import { searchListings } from '../../src/services/search/listing-search';
import { BENCH, benchDatabaseUrl } from './settings';

const captured: Array<{ sql: string; params: unknown[] }> = [];
const capture: Logger = {
  logQuery: (sql, params) => void captured.push({ sql, params: Array.isArray(params) ? params : [] }),
  logQueryError: () => undefined,
  logQuerySlow: () => undefined,
  logSchemaBuild: () => undefined,
  logMigration: () => undefined,
  log: () => undefined,
};

/** A data source on `url` that records every statement it sends (for EXPLAIN). */
export async function capturingDataSource(url: string): Promise<DataSource> {
  const options = createDataSource({ url, poolSize: 2, applicationName: 'bench-explain' }).options;
  const db = new DataSource({ ...options, logging: ['query'], logger: capture });
  await db.initialize();
  return db;
}

/**
 * Markdown: under each title, EXPLAIN (ANALYZE, BUFFERS) of every statement its call sent
 * through `db` (a `capturingDataSource`), in order.
 */
export async function explainCalls(db: DataSource, runs: Array<[string, () => Promise<unknown>]>): Promise<string[]> {
  const out: string[] = [];
  for (const [title, run] of runs) {
    captured.length = 0;
    await run();
    // Every statement the endpoint sends, in order (ranking or count, page, then the views).
    const statements = [...captured];
    out.push(`## ${title}\n`);
    for (const [n, statement] of statements.entries()) {
      const plan: Array<{ 'QUERY PLAN': string }> = await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`, statement.params);
      // The 200-URN array literal would fill pages; the plan lines around it are what matter.
      const lines = plan.map((r) => r['QUERY PLAN'].replace(/'\{[^}]{200,}\}'/g, "'{…200 URNs…}'"));
      out.push(
        `### statement ${n + 1} of ${statements.length}\n\n\`\`\`\n${statement.sql.replace(/\s+/g, ' ').trim()}\n\n${lines.join('\n')}\n\`\`\`\n`,
      );
    }
  }
  return out;
}

const PREPARED_NOTE = [
  "Item views by URN, an item's live listings and user summaries run as named prepared statements",
  '(src/db/prepared.ts): each connection plans them once, and after five runs PostgreSQL keeps a generic plan',
  'when it costs no more than the planned ones. Their "Planning Time" below is then not paid per request.',
].join('\n');

async function main(): Promise<void> {
  const db = await capturingDataSource(benchDatabaseUrl());
  const [{ urns }] = await db.query(`SELECT array_agg(urn) AS urns FROM (SELECT urn FROM catalog_items ORDER BY md5(urn) LIMIT 200) x`);
  const runs: Array<[string, () => Promise<unknown>]> = [
    ['POST /search/lookup/bulk (200 URNs)', () => loadItems(db, urns)],
    [
      'GET /search?q=charzard (relevance): every match ranked',
      () => searchCatalog(db, { q: 'charzard', sort: 'relevance', page: 1, size: 20 }),
    ],
    [
      'GET /search?q=pikachu (relevance): more matches than RANK_MATCHES_UP_TO, a candidate set ranked',
      () => searchCatalog(db, { q: 'pikachu', sort: 'relevance', page: 1, size: 20 }),
    ],
    [
      'GET /search?q=rare holo (relevance): more matches than the cap, a candidate set ranked',
      () => searchCatalog(db, { q: 'rare holo', sort: 'relevance', page: 1, size: 20 }),
    ],
    [
      'GET /search?q=Dedenne&sort=name: matches collected, then sorted',
      () => searchCatalog(db, { q: 'Dedenne', sort: 'name', page: 1, size: 20 }),
    ],
    [
      'GET /search?q=pikachu&sort=price&page=3: every match carries a name of the query, their price walks merged',
      () => searchCatalog(db, { q: 'pikachu', sort: 'price', page: 3, size: 20 }),
    ],
    [
      'GET /search?q=pikachu jungle&sort=price: matches by their set name too, up to the cap collected, then sorted',
      () => searchCatalog(db, { q: 'pikachu jungle', sort: 'price', page: 1, size: 20 }),
    ],
    [
      'GET /search?q=pikachoo&sort=price: a selective typo match by price',
      () => searchCatalog(db, { q: 'pikachoo', sort: 'price', page: 1, size: 20 }),
    ],
    [
      'GET /search?q=rare&sort=price: a broad match (more than the cap) walking the price index',
      () => searchCatalog(db, { q: 'rare', sort: 'price', page: 1, size: 20 }),
    ],
    ['GET /search?sort=price: the whole catalog ordered by price', () => searchCatalog(db, { sort: 'price', page: 1, size: 20 })],
    [
      'GET /search?set=…&sort=price: one set by price',
      () => searchCatalog(db, { set: 'pokemon/base/base1', sort: 'price', page: 1, size: 20 }),
    ],
    [
      'GET /search?rarity=rare holo&series=…&sort=name, page 5: broad filters walking the name index',
      () => searchCatalog(db, { rarity: 'rare holo', series: 'pokemon/bench', sort: 'name', page: 5, size: 20 }),
    ],
    [
      'POST /listings/item as served: keeping an item, all its live listings at once (the popular item, 2,000 listings)',
      () => ItemListings.load(db, BENCH.popularUrn),
    ],
    [
      'POST /listings/item (popular item, price)',
      () => searchListings(db, { urn: BENCH.popularUrn, filters: {}, sort: 'price', from: 0, size: 20 }),
    ],
    [
      'POST /listings/item (popular item, -price, two conditions, page 3)',
      () =>
        searchListings(db, { urn: BENCH.popularUrn, filters: { condition: ['MINT', 'NEAR_MINT'] }, sort: '-price', from: 40, size: 20 }),
    ],
    [
      'POST /listings/item (popular item, newest, English, price range)',
      () =>
        searchListings(db, {
          urn: BENCH.popularUrn,
          filters: { language: ['en'], priceMin: 1000, priceMax: 9000 },
          sort: 'newest',
          from: 0,
          size: 20,
        }),
    ],
  ];
  const out = await explainCalls(db, runs);
  const file = path.join(__dirname, '../results/catalog-explain.md');
  writeFileSync(file, `# EXPLAIN (ANALYZE, BUFFERS) of the benchmarked queries\n\n${PREPARED_NOTE}\n\n${out.join('\n')}`);
  console.log(out.join('\n'));
  await db.destroy();
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
