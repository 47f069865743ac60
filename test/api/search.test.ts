import { searchCatalog } from '../../src/services/search/catalog-search';
import { registerSeller, startTestApi, type TestApi } from '../support/api';
import { importSeed } from '../support/catalog';
import { insertListing } from '../support/fixtures';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
  await importSeed(api.database.db);
});
afterAll(() => api.close());

const names = (body: { items: Array<{ name: string }> }) => body.items.map((i) => i.name);

describe('GET /search', () => {
  it('finds Charizard from the typo "charzard", best match first, with a short public cache', async () => {
    const res = await api.http.get('/search').query({ q: 'charzard' }).expect(200);
    expect(res.headers['cache-control']).toBe('public, max-age=30');
    expect(res.body.items[0]).toMatchObject({ urn: 'pokemon/base/base1/4', name: 'Charizard', set: { name: 'Base' }, game: 'Pokémon' });
    expect(names(res.body).every((n: string) => /char/i.test(n))).toBe(true);
  });

  it('matches words of the title, so a card name with its set narrows to that set', async () => {
    const res = await api.http.get('/search').query({ q: 'pikachu jungle' }).expect(200);
    expect(res.body.items[0]).toMatchObject({ name: 'Pikachu', set: { urn: 'pokemon/base/base2' } });
  });

  it('filters by game, series, set and rarity (case-insensitive), and pages with an exact total', async () => {
    const all = await api.http.get('/search').query({ set: 'pokemon/base/base1', rarity: 'RARE HOLO', size: 50 }).expect(200);
    expect(all.body).toMatchObject({ total: 16, totalRelation: 'eq' });
    expect(
      all.body.items.every((i: { rarity: string; set: { urn: string } }) => i.rarity === 'Rare Holo' && i.set.urn === 'pokemon/base/base1'),
    ).toBe(true);
    const page2 = await api.http
      .get('/search')
      .query({ set: 'pokemon/base/base1', rarity: 'rare holo', size: 10, page: 2, sort: 'name' })
      .expect(200);
    expect(page2.body).toMatchObject({ total: 16, page: 2, size: 10 });
    expect(names(page2.body)).toEqual([...names(all.body)].sort().slice(10));
    const past = await api.http.get('/search').query({ set: 'pokemon/base/base1', rarity: 'rare holo', size: 10, page: 3 }).expect(200);
    expect(past.body).toMatchObject({ total: 16, totalRelation: 'eq', items: [] });
    const other = await api.http.get('/search').query({ game: 'pokemon', series: 'pokemon/neo', q: 'charizard' }).expect(200);
    expect(other.body.total).toBe(0);
  });

  it('sorts by the lowest live listing price, items without listings last', async () => {
    const seller = await registerSeller(api);
    await insertListing(api.database.db, { sellerId: seller.id, itemUrn: 'pokemon/base/base1/2', price: 900 });
    await insertListing(api.database.db, { sellerId: seller.id, itemUrn: 'pokemon/base/base1/3', price: 300 });
    await insertListing(api.database.db, { sellerId: seller.id, itemUrn: 'pokemon/base/base1/1', price: 100, hidden: true });
    const res = await api.http.get('/search').query({ set: 'pokemon/base/base1', sort: 'price', size: 3 }).expect(200);
    expect(res.body.items.map((i: { urn: string; price: number | null }) => [i.urn, i.price])).toEqual([
      ['pokemon/base/base1/3', 300],
      ['pokemon/base/base1/2', 900],
      [expect.any(String), null],
    ]);
  });

  it('pages a price sort across the last item for sale into the items with nothing for sale, by name', async () => {
    const seller = await registerSeller(api);
    await insertListing(api.database.db, { sellerId: seller.id, itemUrn: 'pokemon/base/base1/10', price: 700 });
    await insertListing(api.database.db, { sellerId: seller.id, itemUrn: 'pokemon/base/base1/11', price: 650 });
    const all = await api.http.get('/search').query({ set: 'pokemon/base/base1', sort: 'name', size: 50 }).expect(200);
    const pages = [];
    for (const page of [1, 2, 3]) {
      const res = await api.http.get('/search').query({ set: 'pokemon/base/base1', sort: 'price', size: 3, page }).expect(200);
      expect(res.body.total).toBe(all.body.total);
      pages.push(...res.body.items.map((i: { urn: string; price: number | null }) => [i.urn, i.price]));
    }
    // Priced items of the set first (with the earlier test's, four: pages of three cross the
    // boundary inside page 2), cheapest first; then the rest by name.
    const priced = pages.filter(([, price]) => price !== null);
    expect(priced.map(([, price]) => price)).toEqual([...priced.map(([, price]) => price)].sort((a, b) => a - b));
    expect(priced.map(([urn]) => urn)).toEqual(expect.arrayContaining(['pokemon/base/base1/11', 'pokemon/base/base1/10']));
    expect(pages.slice(0, priced.length)).toEqual(priced);
    const unpricedUrns = pages.slice(priced.length).map(([urn]) => urn);
    const byName = all.body.items.map((i: { urn: string }) => i.urn).filter((u: string) => !priced.some(([p]) => p === u));
    expect(unpricedUrns).toEqual(byName.slice(0, unpricedUrns.length));
    expect(priced).toHaveLength(4);
    expect(pages).toHaveLength(9);
  });

  it('orders by price the same whether it collects the matches or walks the price index', async () => {
    const db = api.database.db;
    const seller = await registerSeller(api);
    for (const [n, price] of [
      [20, 450],
      [21, 450],
      [22, 120],
      [23, 9000],
    ] as const) {
      await insertListing(db, { sellerId: seller.id, itemUrn: `pokemon/base/base1/${n}`, price });
    }
    for (const q of [undefined, 'energy']) {
      for (const page of [1, 2, 3, 4]) {
        const query = { q, set: 'pokemon/base/base1', sort: 'price' as const, page, size: 5 };
        const probed = await searchCatalog(db, query, { collectMatchesUpTo: 1_000_000 });
        const walked = await searchCatalog(db, query, { collectMatchesUpTo: 0 });
        expect(walked.items.map((i) => i.urn)).toEqual(probed.items.map((i) => i.urn));
        expect(walked.total).toBe(probed.total);
        if (!q && page === 1) expect(probed.items.slice(0, 2).map((i) => i.price)).toEqual([120, 300]);
      }
    }
  });

  it('ranks a bounded candidate set to the same first page as ranking every match', async () => {
    const db = api.database.db;
    for (const q of ['charzard', 'pikachu', 'energy', 'charizard base', 'pikachu jungle', 'nidoran']) {
      const query = { q, sort: 'relevance' as const, page: 1, size: 5 };
      const every = await searchCatalog(db, query, { rankMatchesUpTo: 1_000_000 });
      const bounded = await searchCatalog(db, query, { rankMatchesUpTo: 0 });
      expect({ q, urns: bounded.items.map((i) => i.urn) }).toEqual({ q, urns: every.items.map((i) => i.urn) });
      expect({ q, found: every.items.length > 0 }).toEqual({ q, found: true });
    }
  });

  it('rejects bad paging and sort values, naming each field', async () => {
    const res = await api.http.get('/search').query({ q: 'x', size: 51, page: 0, sort: 'random' }).expect(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['page', 'size', 'sort']);
  });
});

describe('GET /search totals beyond 10,000 matches', () => {
  /** `count` items named "Zzyzx Token" in a set of their own, written by one statement. */
  async function seedTokens(count: number): Promise<void> {
    const db = api.database.db;
    await db.query(`DELETE FROM catalog_items WHERE set_urn = 'pokemon/tokens/zzyzx'`);
    await db.query(
      `INSERT INTO catalog_series (urn, game_urn, name) VALUES ('pokemon/tokens', 'pokemon', 'Tokens') ON CONFLICT DO NOTHING`,
    );
    await db.query(`
      INSERT INTO catalog_sets (urn, series_urn, game_urn, name) VALUES ('pokemon/tokens/zzyzx', 'pokemon/tokens', 'pokemon', 'Zzyzx')
        ON CONFLICT DO NOTHING`);
    await db.query(
      `INSERT INTO catalog_items (urn, slug, game_urn, series_urn, set_urn, title, name, number)
       SELECT 'pokemon/tokens/zzyzx/' || n, 'zzyzx-token-' || n, 'pokemon', 'pokemon/tokens', 'pokemon/tokens/zzyzx',
              'Zzyzx Token (Zzyzx ' || n || ')', 'Zzyzx Token', n::text
         FROM generate_series(1, $1::int) n`,
      [count],
    );
  }

  it('counts up to 10,000 and says "at least" beyond, in every order, still paging', async () => {
    await seedTokens(10_001);
    for (const sort of ['relevance', 'name', 'price']) {
      const res = await api.http.get('/search').query({ q: 'zzyzx token', sort, size: 50, page: 3 }).expect(200);
      expect(res.body).toMatchObject({ total: 10_000, totalRelation: 'gte', page: 3, size: 50 });
      expect(res.body.items).toHaveLength(50);
      expect(res.body.items.every((i: { name: string }) => i.name === 'Zzyzx Token')).toBe(true);
    }
    const filtered = await api.http.get('/search').query({ set: 'pokemon/tokens/zzyzx', sort: 'name' }).expect(200);
    expect(filtered.body).toMatchObject({ total: 10_000, totalRelation: 'gte' });
    // A page beyond the 10,000 counted still answers the matches there.
    const deep = await api.http.get('/search').query({ set: 'pokemon/tokens/zzyzx', sort: 'name', size: 50, page: 201 }).expect(200);
    expect(deep.body).toMatchObject({ total: 10_000, totalRelation: 'gte' });
    expect(deep.body.items).toHaveLength(1);
  });

  it('is exact, "eq", at 10,000 matches and below', async () => {
    await seedTokens(10_000);
    const res = await api.http.get('/search').query({ q: 'zzyzx', sort: 'price' }).expect(200);
    expect(res.body).toMatchObject({ total: 10_000, totalRelation: 'eq' });
    await api.database.db.query(`DELETE FROM catalog_items WHERE urn = 'pokemon/tokens/zzyzx/1'`);
    const fewer = await api.http.get('/search').query({ set: 'pokemon/tokens/zzyzx' }).expect(200);
    expect(fewer.body).toMatchObject({ total: 9_999, totalRelation: 'eq' });
  });

  // The hierarchy tests below count the demo catalog's series and sets.
  afterAll(async () => {
    const db = api.database.db;
    await db.query(`DELETE FROM catalog_items WHERE set_urn = 'pokemon/tokens/zzyzx'`);
    await db.query(`DELETE FROM catalog_sets WHERE urn = 'pokemon/tokens/zzyzx'`);
    await db.query(`DELETE FROM catalog_series WHERE urn = 'pokemon/tokens'`);
  });
});

describe('catalog hierarchy under /search/catalog', () => {
  it('lists games with series, set and item counts', async () => {
    const res = await api.http.get('/search/catalog').expect(200);
    expect(res.body.games).toContainEqual({
      urn: 'pokemon',
      name: 'Pokémon',
      counts: { series: expect.any(Number), sets: 173, items: 644 },
    });
  });

  it('walks game → series → set → items, with counts at each level', async () => {
    const game = await api.http.get('/search/catalog/pokemon').expect(200);
    expect(game.body.series).toContainEqual({ urn: 'pokemon/base', name: 'Base', counts: { sets: expect.any(Number), items: 166 } });

    const series = await api.http.get('/search/catalog/pokemon/base').expect(200);
    expect(series.body.game).toEqual({ urn: 'pokemon', name: 'Pokémon' });
    expect(series.body.sets.slice(0, 2).map((s: { urn: string }) => s.urn)).toEqual(['pokemon/base/base1', 'pokemon/base/base2']);
    expect(series.body.sets).toContainEqual(expect.objectContaining({ urn: 'pokemon/base/base3', name: 'Fossil', counts: { items: 0 } }));

    const set = await api.http.get('/search/catalog/pokemon/base/base1').query({ page: 1, size: 12 }).expect(200);
    expect(set.body.set).toMatchObject({ urn: 'pokemon/base/base1', name: 'Base', counts: { items: 102 } });
    expect(set.body.items.map((i: { number: string }) => i.number)).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
      '10',
      '11',
      '12',
    ]);
  });

  it('answers 404 for a node that does not exist', async () => {
    await api.http.get('/search/catalog/nogame').expect(404);
    await api.http.get('/search/catalog/pokemon/noseries').expect(404);
    await api.http.get('/search/catalog/pokemon/base/noset').expect(404);
  });
});
