// Seller search answers from an in-memory index of the seller's listings. This test checks
// that index against SQL: after a random workload of listings (created, held, deleted), random
// searches must give the total, page and facet counts that SQL computes from the listings.
import { BOOLEAN_FACETS, FACET_KEYS, FACET_SQL, type FacetKey } from '../../src/services/listings/seller-search-fields';
import { SellerListingIndex } from '../../src/services/listings/seller-listing-index';
import { reserveStock } from '../../src/services/listings/stock';
import { registerSeller, startTestApi, type TestApi, type TestUser } from '../support/api';
import { seedCatalog, type FixtureItem } from '../support/fixtures';
import { prng } from '../support/random';

let api: TestApi;
let items: FixtureItem[];
let seller: TestUser;
let rival: TestUser;

/** Draws from a seeded generator, so a failure replays. */
function random(seed: number) {
  const next = prng(seed);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(list: readonly T[]) => list[int(list.length)]!;
  return { next, int, pick };
}

const rnd = random(20261127);
const CONDITIONS = ['MINT', 'NEAR_MINT', 'EXCELLENT', 'GOOD', 'PLAYED'] as const;
const NOTES = ['binder red', 'box 7', 'binder blue', 'shelf', ''];

function randomListing() {
  const graded = rnd.next() < 0.2;
  return {
    urn: rnd.next() < 0.1 ? 'pokemon/base/unknown/1' : rnd.pick(items).urn,
    condition: rnd.pick(CONDITIONS),
    language: rnd.pick(['en', 'de']),
    price: rnd.pick([50, 99, 100, 450, 999, 1500, 7000, 25000]),
    quantity: rnd.pick([0, 1, 2, 3, 6, 12]),
    hidden: rnd.next() < 0.2,
    notes: rnd.pick(NOTES),
    ...(graded ? { gradingProvider: 'PSA', gradingScore: '9' } : {}),
  };
}

beforeAll(async () => {
  api = await startTestApi();
  items = [
    ...(await seedCatalog(api.database.db, { names: ['Alakazam', 'Blastoise', 'Charizard'] })).items,
    ...(await seedCatalog(api.database.db, { names: ['Dragonite', 'Charmander'] })).items,
  ];
  seller = await registerSeller(api);
  rival = await registerSeller(api);
  const created: string[] = [];
  for (let batch = 0; batch < 3; batch++) {
    const res = await api.http
      .post('/seller/listings/bulk')
      .set(seller.bearer)
      .send({ listings: Array.from({ length: 30 }, randomListing) })
      .expect(200);
    created.push(...res.body.results.map((r: { listing: { id: string } }) => r.listing.id));
  }
  await api.http
    .post('/seller/listings/bulk')
    .set(rival.bearer)
    .send({ listings: Array.from({ length: 10 }, randomListing) })
    .expect(200);
  // Holds (Availability, `available`) and deletions, before the first search loads the index.
  for (const id of created.slice(0, 40)) {
    await api.database.db.transaction((tx) => reserveStock(tx, id, 1)).catch(() => undefined);
  }
  for (const id of created.slice(80)) await api.http.delete(`/seller/listings/${id}`).set(seller.bearer).expect(204);
});
afterAll(() => api.close());

interface Request {
  query?: string;
  facets: Partial<Record<FacetKey, Array<string | boolean>>>;
  filters: Array<{ field: string; op: string; value: unknown }>;
  from: number;
  size: number;
}

/** The facet values the seller's listings have, to select from (plus, for text facets, one no listing has). */
async function facetValues(): Promise<Record<FacetKey, string[]>> {
  const out = {} as Record<FacetKey, string[]>;
  for (const key of FACET_KEYS) {
    const rows: Array<{ v: string }> = await api.database.db.query(
      `SELECT DISTINCT (${FACET_SQL[key]})::text AS v FROM listings l ${JOINS} WHERE l.seller_id = $1 AND (${FACET_SQL[key]}) IS NOT NULL`,
      [seller.id],
    );
    out[key] = [...rows.map((r) => r.v), ...(BOOLEAN_FACETS.includes(key) ? [] : ['none-such'])];
  }
  return out;
}

const JOINS = `LEFT JOIN catalog_items i ON i.urn = l.item_urn LEFT JOIN catalog_sets s ON s.urn = i.set_urn
               LEFT JOIN catalog_series sr ON sr.urn = i.series_urn LEFT JOIN catalog_games g ON g.urn = i.game_urn`;

function randomRequest(values: Record<FacetKey, string[]>, times: string[]): Request {
  const facets: Request['facets'] = {};
  for (let n = rnd.int(4); n > 0; n--) {
    const key = rnd.pick(FACET_KEYS);
    const pickValue = () => {
      const v = rnd.pick(values[key]);
      return BOOLEAN_FACETS.includes(key) ? v === 'true' : v;
    };
    facets[key] = Array.from({ length: 1 + rnd.int(2) }, pickValue);
  }
  const filters: Request['filters'] = [];
  const when = rnd.pick(times);
  for (let n = rnd.int(3); n > 0; n--) {
    filters.push(
      rnd.pick([
        { field: 'price', op: rnd.pick(['lt', 'gte', 'eq', 'ne']), value: rnd.pick([99, 100, 1000, 7000]) },
        { field: 'price', op: 'in', value: [rnd.pick([50, 999, 1500]), '25000', 'abc'] },
        { field: 'available', op: rnd.pick(['gt', 'eq', 'lte']), value: rnd.int(4) },
        { field: 'quantity', op: 'in', value: [rnd.int(4), 12] },
        { field: rnd.pick(['createdAt', 'updatedAt']), op: rnd.pick(['lt', 'lte', 'gt', 'gte', 'eq', 'ne']), value: when },
        { field: 'createdAt', op: 'in', value: [when, rnd.pick(times)] },
        { field: 'condition', op: 'in', value: [rnd.pick(CONDITIONS), rnd.pick(CONDITIONS)] },
        { field: 'condition', op: rnd.pick(['lt', 'gte', 'ne']), value: rnd.pick(CONDITIONS) },
        { field: 'language', op: 'ne', value: 'de' },
        { field: 'gradingProvider', op: rnd.pick(['eq', 'ne']), value: 'PSA' },
        { field: 'urn', op: rnd.pick(['lt', 'gt']), value: rnd.pick(items).urn },
        { field: 'notes', op: rnd.pick(['eq', 'lt', 'gte']), value: rnd.pick(NOTES.filter(Boolean)) },
      ]),
    );
  }
  const words = ['char', 'binder', 'blue', 'ALAKAZAM', 'box 7', 'set', 'zz', ''];
  return { query: rnd.next() < 0.5 ? rnd.pick(words) : undefined, facets, filters, from: rnd.int(20), size: 1 + rnd.int(25) };
}

/** The same search as plain SQL over the listings: the reference the index must agree with. */
async function expected(req: Request) {
  const params: unknown[] = [seller.id];
  const p = (v: unknown) => `$${params.push(v)}`;
  const where = ['l.seller_id = $1', 'l.deleted_at IS NULL'];
  for (const word of (req.query ?? '').toLowerCase().split(/\s+/).filter(Boolean)) where.push(`strpos(l.search_text, ${p(word)}) > 0`);
  // Text compares in code point order (the C collation), dates as timestamps.
  const columns: Record<string, [sql: string, type: string]> = {
    price: ['l.price', 'int'],
    quantity: ['l.quantity', 'int'],
    available: ['(l.quantity - l.reserved)', 'int'],
    createdAt: ['l.created_at', 'timestamptz'],
    updatedAt: ['l.updated_at', 'timestamptz'],
    urn: ['l.item_urn COLLATE "C"', 'text'],
    condition: ['l.condition COLLATE "C"', 'text'],
    language: ['l.language COLLATE "C"', 'text'],
    gradingProvider: ['l.grading_provider COLLATE "C"', 'text'],
    notes: ['l.notes COLLATE "C"', 'text'],
  };
  const ops: Record<string, string> = { lt: '<', lte: '<=', gt: '>', gte: '>=', eq: '=', ne: '<>' };
  for (const f of req.filters) {
    const [column, type] = columns[f.field]!;
    if (f.op === 'in') {
      // A value that is no number (or no timestamp) matches nothing.
      const values = (f.value as unknown[]).filter((v) => (type === 'int' ? Number.isFinite(Number(v)) : true));
      where.push(`${column} = ANY(${p(values.map(String))}::${type}[])`);
    } else where.push(`${column} ${ops[f.op]} ${p(f.value)}::${type}`);
  }
  for (const [key, selected] of Object.entries(req.facets)) {
    if (selected.length > 0) where.push(`(${FACET_SQL[key as FacetKey]})::text = ANY(${p(selected.map(String))})`);
  }
  const matching = `FROM listings l ${JOINS} WHERE ${where.join(' AND ')}`;
  const db = api.database.db;
  const [{ total }] = await db.query(`SELECT count(*)::int AS total ${matching}`, params);
  const page: Array<{ id: string }> = await db.query(
    `SELECT l.id ${matching} ORDER BY l.created_at DESC, l.id DESC LIMIT ${req.size} OFFSET ${req.from}`,
    params,
  );
  const facets: Record<string, Array<{ value: string | boolean; count: number }>> = {};
  for (const key of FACET_KEYS) {
    const rows: Array<{ v: string | null; n: number }> = await db.query(
      `SELECT (${FACET_SQL[key]})::text AS v, count(*)::int AS n ${matching} GROUP BY 1`,
      params,
    );
    facets[key] = rows
      .filter((r) => r.v !== null)
      .map((r) => ({ value: BOOLEAN_FACETS.includes(key) ? r.v === 'true' : r.v!, count: r.n }))
      .sort((a, b) => b.count - a.count || String(a.value).localeCompare(String(b.value)));
  }
  return { total: total as number, ids: page.map((r) => r.id), facets };
}

describe('seller search index', () => {
  it('loads the same index whatever the chunk it reads the listings in', async () => {
    const whole = await SellerListingIndex.load(api.database.db, seller.id);
    const query = { words: [], facets: {}, filters: [], from: 0, size: 100 };
    const expected = whole.search(query);
    expect(expected.total).toBeGreaterThan(50);
    // 7 does not divide the listing count, so the last chunk is a partial one.
    for (const chunk of [1, 7, expected.total]) {
      expect((await SellerListingIndex.load(api.database.db, seller.id, chunk)).search(query)).toEqual(expected);
    }
  });

  it('agrees with SQL on total, page and all fourteen facet counts for 150 random searches', async () => {
    const values = await facetValues();
    // Filter times: listings' own times at the API's millisecond precision (the database keeps microseconds).
    const times: string[] = (
      await api.database.db.query(`SELECT created_at, updated_at FROM listings WHERE seller_id = $1`, [seller.id])
    ).flatMap((r: { created_at: Date; updated_at: Date }) => [r.created_at.toISOString(), r.updated_at.toISOString()]);
    let nonEmpty = 0;
    for (let n = 0; n < 150; n++) {
      const req = randomRequest(values, times);
      const res = await api.http.post('/seller/listings/search').set(seller.bearer).send(req);
      expect({ request: req, status: res.status, errors: res.body.errors }).toEqual({ request: req, status: 200, errors: undefined });
      const want = await expected(req);
      const got = { total: res.body.total, ids: res.body.hits.map((h: { id: string }) => h.id), facets: res.body.facets };
      expect({ request: req, ...got }).toEqual({ request: req, ...want });
      if (want.total > 0) nonEmpty++;
    }
    // The workload must exercise matches, not only empty results.
    expect(nonEmpty).toBeGreaterThan(50);
  });

  it('answers word searches the same before and after it has dropped the listings of words it kept', async () => {
    const index = await SellerListingIndex.load(api.database.db, seller.id);
    const search = (words: string[]) => index.search({ words, facets: {}, filters: [], from: 0, size: 100 });
    const queries = [['char'], ['binder'], ['binder', 'blue'], ['alakazam'], ['set']];
    const first = queries.map(search);
    expect(first.filter((a) => a.total > 0).length).toBeGreaterThan(3);
    // More distinct words than an index keeps the listings of (256), then the same searches again.
    for (let n = 0; n < 300; n++) search([`word${n}`]);
    expect(queries.map(search)).toEqual(first);
    // And each agrees with a full scan's answer: a fresh index that has kept no word.
    const fresh = await SellerListingIndex.load(api.database.db, seller.id);
    expect(queries.map((words) => fresh.search({ words, facets: {}, filters: [], from: 0, size: 100 }))).toEqual(first);
  });
});
