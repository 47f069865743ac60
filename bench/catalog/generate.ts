// Builds the benchmark catalog in BENCH_DATABASE_URL (default: database mts_bench_catalog on the
// local PostgreSQL, created if missing): the real demo seed, cloned into enough synthetic sets for
// ≥ 100,000 items with real card names, 1,000 sellers and ≥ 500,000 listings. One popular item
// (Base Set Charizard) gets 2,000 listings. Set-based SQL: seconds, not minutes. Re-running rebuilds.
// `generateCatalog` builds other sizes with the same shape (bench/catalog/growth.ts).
import { createReadStream } from 'node:fs';
import readline from 'node:readline';
import { Client } from 'pg';
import { connectAndMigrate } from '../../src/db/data-source';
import { importCatalog } from '../../src/services/catalog/catalog-import';
import { LIVE_LISTING_SQL } from '../../src/services/listings/visibility';
import { BENCH, benchDatabaseUrl } from './settings';

async function ensureDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const admin = new Client({ connectionString: url.replace(/\/[^/]+$/, '/postgres') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
}

/** The shape of a generated catalog; BENCH's figures by default. */
export interface CatalogSize {
  /** Synthetic copies of each real set (items ≈ 644 × (copies + 1)). */
  copies: number;
  sellers: number;
  listings: number;
  popularListings: number;
  /**
   * Insert the listings with the item_market triggers disabled and fill item_market in one
   * aggregate afterwards (as its migration does), instead of one refresh of every item at the
   * statement's commit: what a bulk load of a million items needs.
   */
  bulkMarket?: boolean;
}

const steps = (size: CatalogSize): Array<[string, string]> => [
  [
    'synthetic sets',
    `INSERT INTO catalog_sets (urn, series_urn, game_urn, name, printed_count, total_count, "references", size, released)
     SELECT 'pokemon/bench/' || s.urn_tail || '-' || g, 'pokemon/bench', 'pokemon', s.name || ' #' || g,
            s.printed_count, s.total_count, s."references", s.size, s.released
       FROM (SELECT split_part(urn, '/', 3) AS urn_tail, * FROM catalog_sets WHERE urn IN (SELECT DISTINCT set_urn FROM catalog_items)) s
      CROSS JOIN generate_series(1, ${size.copies}) g`,
  ],
  [
    'items',
    `INSERT INTO catalog_items (urn, slug, type, game_urn, series_urn, set_urn, title, name, rarity, number, description, images, alternatives, metadata)
     SELECT 'pokemon/bench/' || split_part(i.set_urn, '/', 3) || '-' || g || '/' || i.number,
            i.slug || '-b' || g, i.type, 'pokemon', 'pokemon/bench', 'pokemon/bench/' || split_part(i.set_urn, '/', 3) || '-' || g,
            i.title, i.name, i.rarity, i.number, i.description, i.images, i.alternatives, i.metadata
       FROM catalog_items i CROSS JOIN generate_series(1, ${size.copies}) g
      WHERE i.series_urn <> 'pokemon/bench'`,
  ],
  [
    'sellers',
    `WITH u AS (
       INSERT INTO users (id, email, username, password_hash, reviews_count, rating_sum, sales_count)
       SELECT gen_random_uuid(), 'seller' || n || '@bench.test', 'seller' || n, 'x', n % 50, (n % 50) * 4, n % 300
         FROM generate_series(1, ${size.sellers}) n RETURNING id, username)
     INSERT INTO seller_accounts (user_id, vacation)
     SELECT id, substring(username from 7)::int % 50 = 0 FROM u`,
  ],
  [
    'listings',
    // Items and sellers are numbered once, so each listing picks both by a random number through a
    // hash join (indexing a 100,000-element array per row would detoast it every time).
    `WITH items AS (SELECT row_number() OVER (ORDER BY urn) AS k, urn FROM catalog_items),
          sellers AS (SELECT row_number() OVER (ORDER BY user_id) AS k, user_id FROM seller_accounts),
          picks AS (SELECT n, 1 + floor(random() * (SELECT count(*) FROM items))::bigint AS item_k,
                           1 + floor(random() * ${size.sellers})::bigint AS seller_k
                      FROM generate_series(1, ${size.listings}) n)
     INSERT INTO listings (id, seller_id, item_urn, condition, language, price, quantity, reserved, hidden, valid, grading_provider, created_at)
     SELECT gen_random_uuid(), sellers.user_id,
            CASE WHEN n <= ${size.popularListings} THEN '${BENCH.popularUrn}' ELSE items.urn END,
            (ARRAY['MINT','NEAR_MINT','EXCELLENT','GOOD','PLAYED'])[1 + n % 5],
            (ARRAY['en','en','en','ja','de','fr'])[1 + n % 6],
            100 + floor(random() * 20000)::int, 1 + n % 4, CASE WHEN n % 17 = 0 THEN 1 ELSE 0 END,
            n % 20 = 0, n % 50 <> 0, CASE WHEN n % 10 = 0 THEN 'PSA' END,
            now() - (n % 1000) * interval '1 hour'
       FROM picks JOIN items ON items.k = picks.item_k JOIN sellers ON sellers.k = picks.seller_k`,
  ],
  [
    'attachments',
    `INSERT INTO listing_attachments (id, listing_id, image_id, url)
     SELECT gen_random_uuid(), id, 'bench-' || id, 'https://img.bench.test/' || id || '.jpg'
       FROM listings WHERE item_urn = '${BENCH.popularUrn}' AND random() < 0.5`,
  ],
];

const MARKET_TRIGGERS = ['listings_market_insert', 'listings_market_update', 'listings_market_delete'];

/**
 * Rebuilds the database at `url` with a catalog of `size`; returns each step's seconds (the
 * market fill, with `bulkMarket`, is its own step) and the counts.
 */
export async function generateCatalog(
  url: string,
  size: CatalogSize,
): Promise<{ steps: Array<[string, number]>; items: number; listings: number }> {
  await ensureDatabase(url);
  const db = await connectAndMigrate({ url, poolSize: 2, applicationName: 'bench-generate' });
  const timed: Array<[string, number]> = [];
  const time = async (what: string, run: () => Promise<unknown>) => {
    const started = Date.now();
    await run();
    timed.push([what, (Date.now() - started) / 1000]);
    console.log(`${what}: ${timed.at(-1)![1].toFixed(1)} s`);
  };
  await time('demo catalog import', async () => {
    const lines = readline.createInterface({ input: createReadStream('data/catalog/items.ndjson'), crlfDelay: Infinity });
    await importCatalog(db, lines);
    await db.query(`INSERT INTO catalog_series (urn, game_urn, name) VALUES ('pokemon/bench', 'pokemon', 'Bench')`);
  });
  for (const [what, sql] of steps(size)) {
    const bulk = what === 'listings' && size.bulkMarket;
    if (bulk) for (const t of MARKET_TRIGGERS) await db.query(`ALTER TABLE listings DISABLE TRIGGER ${t}`);
    await time(bulk ? 'listings (market triggers off)' : what, () => db.query(sql));
    if (bulk) {
      for (const t of MARKET_TRIGGERS) await db.query(`ALTER TABLE listings ENABLE TRIGGER ${t}`);
      await time('item_market fill (one aggregate)', () =>
        db.query(`
          INSERT INTO item_market (item_urn, min_price, max_price, available, quantity)
          SELECT l.item_urn, min(l.price), max(l.price), sum(l.quantity - l.reserved)::int, sum(l.quantity)::int
            FROM listings l JOIN seller_accounts sa ON sa.user_id = l.seller_id
           WHERE ${LIVE_LISTING_SQL}
           GROUP BY l.item_urn`),
      );
    }
  }
  // Bulk inserts append to catalog_search in insertion order, scattering each name's items over
  // the table; a deployment's table is in name order (its migration wrote it so, and
  // docs/operations.md re-clusters it after large imports), and so is the bench's.
  await time('search table in name order (CLUSTER)', () => db.query('CLUSTER catalog_search USING catalog_search_name_idx'));
  await time('VACUUM ANALYZE', () => db.query('VACUUM ANALYZE'));
  const [counts] = await db.query(
    `SELECT (SELECT count(*) FROM catalog_items)::int AS items, (SELECT count(*) FROM listings)::int AS listings`,
  );
  await db.destroy();
  return { steps: timed, items: counts.items, listings: counts.listings };
}

async function main(): Promise<void> {
  const { items, listings } = await generateCatalog(benchDatabaseUrl(), BENCH);
  console.log(`catalog: ${items} items, ${listings} listings`);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
