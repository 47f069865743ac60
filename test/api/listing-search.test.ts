import { newId } from '../../src/ids';
import { registerSeller, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertListing, seedCatalog } from '../support/fixtures';

let api: TestApi;
let urn: string;
let slug: string;
let seller: TestUser;
let other: TestUser;
beforeAll(async () => {
  api = await startTestApi();
  const { items } = await seedCatalog(api.database.db);
  urn = items[0]!.urn;
  [{ slug }] = await api.database.db.query(`SELECT slug FROM catalog_items WHERE urn = $1`, [urn]);
  seller = await registerSeller(api);
  other = await registerSeller(api);
});
afterAll(() => api.close());

const search = (body: object) => api.http.post('/listings/item').send(body);
const ids = (res: { body: { hits: Array<{ id: string }> } }) => res.body.hits.map((h) => h.id);

describe('POST /listings/item', () => {
  it('returns only live listings: in stock, not hidden, valid, not deleted, seller active and not on vacation', async () => {
    const db = api.database.db;
    const { items } = await seedCatalog(db);
    const item = items[0]!.urn;
    const live = await insertListing(db, { sellerId: seller.id, itemUrn: item, price: 500 });
    await insertListing(db, { sellerId: seller.id, itemUrn: item, hidden: true });
    await insertListing(db, { sellerId: seller.id, itemUrn: item, valid: false });
    await insertListing(db, { sellerId: seller.id, itemUrn: item, quantity: 2, reserved: 2 });
    await insertListing(db, { sellerId: seller.id, itemUrn: item, deletedAt: new Date() });
    const away = await registerSeller(api);
    await db.query('UPDATE seller_accounts SET vacation = true WHERE user_id = $1', [away.id]);
    await insertListing(db, { sellerId: away.id, itemUrn: item });
    const suspended = await registerSeller(api);
    await db.query(`UPDATE seller_accounts SET status = 'SUSPENDED' WHERE user_id = $1`, [suspended.id]);
    await insertListing(db, { sellerId: suspended.id, itemUrn: item });

    const res = await search({ urn: item }).expect(200);
    expect(res.body.total).toBe(1);
    expect(ids(res)).toEqual([live.id]);
  });

  it('enriches hits with the seller summary, lock state and attachment URLs, never private fields', async () => {
    const db = api.database.db;
    const { items } = await seedCatalog(db);
    const held = await insertListing(db, {
      sellerId: seller.id,
      itemUrn: items[0]!.urn,
      quantity: 3,
      reserved: 1,
      notes: 'SKU-9',
      reference: 'ext-1',
    });
    await db.query(`INSERT INTO listing_attachments (id, listing_id, image_id, url) VALUES ($1, $2, 'img-1', 'https://img.test/1.jpg')`, [
      newId(),
      held.id,
    ]);
    const res = await search({ urn: items[0]!.urn }).expect(200);
    expect(res.headers['cache-control']).toBe('public, max-age=30');
    const [hit] = res.body.hits;
    expect(hit).toMatchObject({
      id: held.id,
      locked: true,
      available: 2,
      seller: { id: seller.id, username: seller.username },
      attachments: [{ imageId: 'img-1', url: 'https://img.test/1.jpg' }],
      item: { urn: items[0]!.urn },
    });
    expect(hit).not.toHaveProperty('notes');
    expect(hit).not.toHaveProperty('reference');
  });

  it('finds the item by slug as well as by URN', async () => {
    const listing = await insertListing(api.database.db, { sellerId: seller.id, itemUrn: urn, price: 4321 });
    const bySlug = await search({ slug, filters: { priceMin: 4321, priceMax: 4321 } }).expect(200);
    expect(ids(bySlug)).toEqual([listing.id]);
  });

  it('answers an unresolvable item with an empty result, not an error', async () => {
    for (const body of [{ urn: 'pokemon/none/none/1' }, { slug: 'no-such-card' }]) {
      const res = await search(body).expect(200);
      expect(res.body).toEqual({ total: 0, hits: [] });
    }
  });

  it('filters by condition, language, price range, grading and seller', async () => {
    const db = api.database.db;
    const { items } = await seedCatalog(db);
    const item = items[0]!.urn;
    const a = await insertListing(db, { sellerId: seller.id, itemUrn: item, condition: 'NEAR_MINT', language: 'en', price: 100 });
    const b = await insertListing(db, { sellerId: seller.id, itemUrn: item, condition: 'PLAYED', language: 'ja', price: 200 });
    const c = await insertListing(db, {
      sellerId: other.id,
      itemUrn: item,
      condition: 'NEAR_MINT',
      language: 'de',
      price: 300,
      gradingProvider: 'PSA',
      gradingScore: '9',
    });
    expect(ids(await search({ urn: item, filters: { condition: ['NEAR_MINT'] } }))).toEqual([a.id, c.id]);
    expect(ids(await search({ urn: item, filters: { language: ['ja', 'de'] } }))).toEqual([b.id, c.id]);
    expect(ids(await search({ urn: item, filters: { priceMin: 150, priceMax: 300 } }))).toEqual([b.id, c.id]);
    expect(ids(await search({ urn: item, filters: { graded: true } }))).toEqual([c.id]);
    expect(ids(await search({ urn: item, filters: { graded: false } }))).toEqual([a.id, b.id]);
    expect(ids(await search({ urn: item, filters: { sellerId: other.id } }))).toEqual([c.id]);
  });

  it('sorts by price either way or newest, and pages with from/size keeping the total', async () => {
    const db = api.database.db;
    const { items } = await seedCatalog(db);
    const item = items[0]!.urn;
    const made = [];
    for (const [i, price] of [300, 100, 200].entries()) {
      made.push(await insertListing(db, { sellerId: seller.id, itemUrn: item, price, createdAt: new Date(Date.UTC(2026, 0, i + 1)) }));
    }
    const [p300, p100, p200] = made.map((l) => l.id);
    expect(ids(await search({ urn: item, sort: 'price' }))).toEqual([p100, p200, p300]);
    expect(ids(await search({ urn: item, sort: '-price' }))).toEqual([p300, p200, p100]);
    expect(ids(await search({ urn: item, sort: 'newest' }))).toEqual([p200, p100, p300]);
    const page = await search({ urn: item, from: 1, size: 1 }).expect(200);
    expect(page.body.total).toBe(3);
    expect(ids(page)).toEqual([p200]);
    const past = await search({ urn: item, from: 10, size: 5 }).expect(200);
    expect(past.body).toEqual({ total: 3, hits: [] });
  });

  it('rejects a bad body, naming every field: both or neither reference, size over 50, inverted price range', async () => {
    const res = await search({
      urn: urn,
      slug,
      size: 51,
      from: -1,
      sort: 'cheapest',
      filters: { priceMin: 500, priceMax: 100, color: 'red' },
    }).expect(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(
      ['body', 'filters.color', 'filters.priceMax', 'from', 'size', 'sort'].sort(),
    );
    const neither = await search({}).expect(400);
    expect(neither.body.errors[0].message).toMatch(/"urn" or "slug"/);
    await search({ urn: 'pokemon/base/' }).expect(400);
    // A bound past any listing's price is refused, not sent to an integer column (it was a 500).
    const huge = await search({ urn: 'pokemon/base/base1/4', filters: { priceMin: 624, priceMax: 10_000_000_000_001 } }).expect(400);
    expect(huge.body.errors.map((e: { field: string }) => e.field)).toEqual(['filters.priceMax']);
  });
});
