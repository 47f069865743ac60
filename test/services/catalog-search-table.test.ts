import { registerSeller, startTestApi, type TestApi } from '../support/api';
import { catalogNameCountDrift, catalogSearchDrift, importSeed } from '../support/catalog';
import { insertListing } from '../support/fixtures';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
  await importSeed(api.database.db);
});
afterAll(() => api.close());

/** catalog_search (migration 1733670000000) is kept by triggers; these writes go around every service. */
describe('catalog_search, the narrow copy catalog search reads', () => {
  it('holds every imported item', async () => {
    const [{ items, searched }] = await api.database.db.query(
      `SELECT (SELECT count(*) FROM catalog_items)::int AS items, (SELECT count(*) FROM catalog_search)::int AS searched`,
    );
    expect(items).toBeGreaterThan(600);
    expect(searched).toBe(items);
    expect(await catalogSearchDrift(api.database.db)).toEqual([]);
    expect(await catalogNameCountDrift(api.database.db)).toEqual([]);
  });

  it('follows renames, rarity and set moves, and deletions of items', async () => {
    const db = api.database.db;
    await db.query(`UPDATE catalog_items SET name = 'Charizard Prime', rarity = 'Ultra Rare' WHERE urn = 'pokemon/base/base1/4'`);
    await db.query(`UPDATE catalog_items SET set_urn = 'pokemon/base/base2' WHERE urn = 'pokemon/base/base1/5'`);
    await db.query(`DELETE FROM catalog_items WHERE urn = 'pokemon/base/base1/6'`);
    expect(await db.query(`SELECT name, rarity_key FROM catalog_search WHERE urn = 'pokemon/base/base1/4'`)).toEqual([
      { name: 'Charizard Prime', rarity_key: 'ultra rare' },
    ]);
    expect(await db.query(`SELECT 1 FROM catalog_search WHERE urn = 'pokemon/base/base1/6'`)).toEqual([]);
    expect(await catalogSearchDrift(db)).toEqual([]);
    // The names' item counts follow too: the rename moved one item, the deletion took one away.
    expect(await catalogNameCountDrift(db)).toEqual([]);
    expect(await db.query(`SELECT items FROM catalog_names WHERE name = 'Charizard Prime'`)).toEqual([{ items: 1 }]);
    const res = await api.http.get('/search').query({ q: 'charizard prime', rarity: 'ultra rare' }).expect(200);
    expect(res.body.items.map((i: { urn: string }) => i.urn)).toEqual(['pokemon/base/base1/4']);
  });

  it('carries the lowest live price as listings come, change and go', async () => {
    const db = api.database.db;
    const seller = await registerSeller(api);
    const urn = 'pokemon/base/base1/7';
    const minPrice = async () => (await db.query(`SELECT min_price FROM catalog_search WHERE urn = $1`, [urn]))[0].min_price;
    expect(await minPrice()).toBeNull();
    const cheap = await insertListing(db, { sellerId: seller.id, itemUrn: urn, price: 700 });
    await insertListing(db, { sellerId: seller.id, itemUrn: urn, price: 900 });
    expect(await minPrice()).toBe(700);
    await db.query(`UPDATE listings SET price = 1200 WHERE id = $1`, [cheap.id]);
    expect(await minPrice()).toBe(900);
    await db.query(`UPDATE listings SET deleted_at = now() WHERE item_urn = $1`, [urn]);
    expect(await minPrice()).toBeNull();
    expect(await catalogSearchDrift(db)).toEqual([]);
  });
});
