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

describe('GET /search by price for a name query', () => {
  // A set of its own: 40 "Vexlord", 25 "Vexlord Prime", 15 "Vexlard" (a near-miss spelling), and in
  // a set named "Vexlord Legends" 10 "Zorbit", which match "vexlord" by their title alone.
  beforeAll(async () => {
    const db = api.database.db;
    await db.query(`INSERT INTO catalog_series (urn, game_urn, name) VALUES ('pokemon/walk', 'pokemon', 'Walk')`);
    await db.query(`
      INSERT INTO catalog_sets (urn, series_urn, game_urn, name)
      VALUES ('pokemon/walk/one', 'pokemon/walk', 'pokemon', 'Walkers'), ('pokemon/walk/two', 'pokemon/walk', 'pokemon', 'Vexlord Legends')`);
    for (const [set, setName, name, from, count] of [
      ['one', 'Walkers', 'Vexlord', 1, 40],
      ['one', 'Walkers', 'Vexlord Prime', 41, 25],
      ['one', 'Walkers', 'Vexlard', 66, 15],
      ['two', 'Vexlord Legends', 'Zorbit', 1, 10],
    ] as const) {
      await db.query(
        `INSERT INTO catalog_items (urn, slug, game_urn, series_urn, set_urn, title, name, number)
         SELECT 'pokemon/walk/${set}/' || n, 'walk-${set}-' || n, 'pokemon', 'pokemon/walk', 'pokemon/walk/${set}',
                $1 || ' (${setName} ' || n || ')', $1, n::text
           FROM generate_series($2::int, $3::int) n`,
        [name, from, from + count - 1],
      );
    }
    const seller = await registerSeller(api);
    // Prices on some items of every name, with ties across names; the rest have nothing for sale.
    const prices: Array<[string, number]> = [
      ['one/3', 500],
      ['one/7', 120],
      ['one/8', 120],
      ['one/20', 9900],
      ['one/44', 120],
      ['one/50', 80],
      ['one/70', 500],
      ['one/71', 60],
      ['two/2', 70],
      ['two/9', 500],
    ];
    for (const [urn, price] of prices) await insertListing(db, { sellerId: seller.id, itemUrn: `pokemon/walk/${urn}`, price });
  });

  afterAll(async () => {
    const db = api.database.db;
    await db.query(`DELETE FROM listings WHERE item_urn LIKE 'pokemon/walk/%'`);
    await db.query(`DELETE FROM catalog_items WHERE series_urn = 'pokemon/walk'`);
    await db.query(`DELETE FROM catalog_sets WHERE series_urn = 'pokemon/walk'`);
    await db.query(`DELETE FROM catalog_series WHERE urn = 'pokemon/walk'`);
  });

  type Row = { urn: string; name: string; price: number | null };

  /** Every page of `q` by price over HTTP, `size` a page, and the total each page answered. */
  async function pricePages(q: string, size: number): Promise<{ totals: number[]; rows: Row[] }> {
    const rows: Row[] = [];
    const totals: number[] = [];
    for (let page = 1; ; page += 1) {
      const res = await api.http.get('/search').query({ q, sort: 'price', size, page }).expect(200);
      totals.push(res.body.total);
      expect(res.body.totalRelation).toBe('eq');
      if (!res.body.items.length) return { totals, rows };
      rows.push(...res.body.items.map((i: Row) => ({ urn: i.urn, name: i.name, price: i.price })));
    }
  }

  it('pages every match of a name query cheapest first, nothing for sale last by name, each once', async () => {
    for (const [q, size, expected] of [
      // By words, or by a name's similarity (pg_trgm's 0.3): "vexlord prime" is 0.57 like "Vexlord",
      // 0.29 unlike "Vexlard"; trigrams ignore the "-" of "-prime".
      ['vexlord', 7, { Vexlord: 40, 'Vexlord Prime': 25, Vexlard: 15, Zorbit: 10 }],
      ['vexlord prime', 6, { Vexlord: 40, 'Vexlord Prime': 25 }],
      ['vexlord -prime', 9, { Vexlord: 40, 'Vexlord Prime': 25, Zorbit: 10 }],
      ['vexlard', 5, { Vexlard: 15, Vexlord: 40 }],
      ['vexlrd', 11, { Vexlard: 15, Vexlord: 40, 'Vexlord Prime': 25 }],
    ] as const) {
      const { totals, rows } = await pricePages(q, size);
      const counts: Record<string, number> = {};
      for (const r of rows) counts[r.name] = (counts[r.name] ?? 0) + 1;
      expect({ q, counts }).toEqual({ q, counts: expected });
      expect({ q, totals: new Set(totals) }).toEqual({ q, totals: new Set([rows.length]) });
      expect(new Set(rows.map((r) => r.urn)).size).toBe(rows.length);
      const priced = rows.filter((r) => r.price !== null);
      expect(rows.slice(0, priced.length)).toEqual(priced);
      // Ties in price and the items with nothing for sale go by name, then URN.
      const key = (r: Row) => [r.price ?? Infinity, r.name, r.urn] as const;
      const sorted = [...rows].sort((a, b) => {
        const [x, y] = [key(a), key(b)];
        return x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0) || (x[2] < y[2] ? -1 : x[2] > y[2] ? 1 : 0);
      });
      expect(rows.map((r) => r.urn)).toEqual(sorted.map((r) => r.urn));
    }
  });

  it('walks the names of a name query to the same pages as collecting its matches', async () => {
    const db = api.database.db;
    const query = jest.spyOn(db, 'query');
    try {
      for (const q of ['vexlord', 'vexlord prime', 'vexlord -prime', 'vexlard', 'vexlrd']) {
        for (const [size, pages] of [
          [5, 3],
          [20, 2],
          [50, 2],
        ] as const) {
          for (let page = 1; page <= pages; page += 1) {
            for (const set of [undefined, 'pokemon/walk/one']) {
              const search = { q, set, sort: 'price' as const, page, size };
              query.mockClear();
              const walked = await searchCatalog(db, search);
              const walks = query.mock.calls.some(([sql]) => String(sql).includes('unnest('));
              const collected = await searchCatalog(db, search, { walkNames: false });
              expect({ q, size, page, set, urns: walked.items.map((i) => i.urn) }).toEqual({
                q,
                size,
                page,
                set,
                urns: collected.items.map((i) => i.urn),
              });
              expect(walked.total).toBe(collected.total);
              // "vexlord" by its first small page is read name by name: "Zorbit" does not match it by name,
              // but by its set's name, so its matches are collected.
              if (size === 5 && page === 1 && !set) expect({ q, walks }).toEqual({ q, walks: q !== 'vexlord' && q !== 'vexlord -prime' });
            }
          }
        }
      }
    } finally {
      query.mockRestore();
    }
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

  it('walks the names of a query matching beyond the cap by name to the same pages as the price index', async () => {
    await seedTokens(10_001);
    const db = api.database.db;
    const seller = await registerSeller(api);
    for (const [n, price] of [
      [17, 300],
      [9_000, 300],
      [40, 120],
    ] as const) {
      await insertListing(db, { sellerId: seller.id, itemUrn: `pokemon/tokens/zzyzx/${n}`, price });
    }
    // And 10,001 items of another name whose titles carry "Zzyzx Promo".
    await db.query(
      `INSERT INTO catalog_items (urn, slug, game_urn, series_urn, set_urn, title, name, number)
       SELECT 'pokemon/tokens/zzyzx/promo-' || n, 'zzyzx-promo-' || n, 'pokemon', 'pokemon/tokens', 'pokemon/tokens/zzyzx',
              'Qux Marker (Zzyzx Promo ' || n || ')', 'Qux Marker', 'promo-' || n
         FROM generate_series(1, 10001) n`,
    );
    const query = jest.spyOn(db, 'query');
    try {
      // "zzyzx tokem" matches the tokens by their name's similarity alone; "zzyzx token" by their
      // words too, but every one of those carries the similar name, so the count shows no other
      // name. "zzyzx promo" is similar to the tokens' name and matches the markers by their words
      // alone, more than 10,000 of them: those cannot be shown to carry only the similar name.
      for (const [q, walks] of [
        ['zzyzx tokem', true],
        ['zzyzx token', true],
        ['zzyzx promo', false],
      ] as const) {
        for (const page of [1, 2, 30]) {
          const search = { q, sort: 'price' as const, page, size: 50 };
          query.mockClear();
          const walked = await searchCatalog(db, search);
          const walkedNames = query.mock.calls.some(([sql]) => String(sql).includes('unnest('));
          const indexed = await searchCatalog(db, search, { walkNames: false });
          expect({ q, page, walkedNames }).toEqual({ q, page, walkedNames: walks });
          expect({ q, page, urns: walked.items.map((i) => i.urn) }).toEqual({ q, page, urns: indexed.items.map((i) => i.urn) });
          expect(walked).toMatchObject({ total: 10_000, totalRelation: 'gte' });
          expect(walked.items).toHaveLength(50);
          if (page === 1)
            expect(walked.items.slice(0, 3).map((i) => [i.urn, i.price])).toEqual([
              ['pokemon/tokens/zzyzx/40', 120],
              ['pokemon/tokens/zzyzx/17', 300],
              ['pokemon/tokens/zzyzx/9000', 300],
            ]);
        }
      }
    } finally {
      query.mockRestore();
      await db.query(`DELETE FROM listings WHERE item_urn LIKE 'pokemon/tokens/zzyzx/%'`);
    }
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
