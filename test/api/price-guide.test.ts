import { registerSeller, registerUser, startTestApi, type TestApi } from '../support/api';
import { insertListing, seedCatalog } from '../support/fixtures';
import { buy } from '../support/shop';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const guideOf = (urn: string) => api.http.get('/search/price-guide').query({ urn });
const noSales = { averagePrice: null, sold: 0 };

describe('GET /search/price-guide', () => {
  it('refuses a malformed URN (400) and answers 404 for an item not in the catalog', async () => {
    const bad = await guideOf('not a urn!').expect(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'urn' })]);
    await api.http.get('/search/price-guide').expect(400);
    await guideOf('pokemon/base/nowhere/1').expect(404);
  });

  it('gives every condition group of an item without sales, with nulls and zero counts', async () => {
    const { items } = await seedCatalog(api.database.db);
    const res = await guideOf(items[0]!.urn).expect(200);
    expect(res.headers['cache-control']).toBe('public, max-age=30');
    expect(res.body).toEqual({
      urn: items[0]!.urn,
      groups: [
        ['NEAR_MINT', ['MINT', 'NEAR_MINT']],
        ['EXCELLENT', ['EXCELLENT', 'GOOD']],
        ['PLAYED', ['LIGHT_PLAYED', 'PLAYED', 'POOR']],
      ].map(([group, conditions]) => ({
        group,
        conditions,
        lowestPrice: null,
        trendPrice: null,
        last1Day: noSales,
        last7Days: noSales,
        last30Days: noSales,
      })),
    });
  });

  it('counts a purchase at once, in its listing condition group, and shows the same entry on listing search hits', async () => {
    const db = api.database.db;
    const { items } = await seedCatalog(db);
    const urn = items[0]!.urn;
    const seller = await registerSeller(api);
    await api.http
      .post('/seller/delivery-options')
      .set(seller.bearer)
      .send({ name: 'Post', price: 100, tracked: false, countries: ['GB'] })
      .expect(201);
    const sold = await insertListing(db, { sellerId: seller.id, itemUrn: urn, price: 1800, quantity: 3, condition: 'GOOD' });
    await insertListing(db, { sellerId: seller.id, itemUrn: urn, price: 2500, quantity: 1, condition: 'MINT' });
    await buy(api, await registerUser(api), [sold.id]);
    const [sale] = await db.query(`SELECT condition, unit_price, quantity FROM item_sales WHERE listing_id = $1`, [sold.id]);
    expect(sale).toEqual({ condition: 'GOOD', unit_price: 1800, quantity: 1 });

    const { body: guide } = await guideOf(urn).expect(200);
    expect(guide.groups[0]).toMatchObject({ group: 'NEAR_MINT', lowestPrice: 2500, trendPrice: null, last30Days: noSales });
    expect(guide.groups[1]).toEqual({
      group: 'EXCELLENT',
      conditions: ['EXCELLENT', 'GOOD'],
      lowestPrice: 1800,
      trendPrice: 1800,
      last1Day: { averagePrice: 1800, sold: 1 },
      last7Days: { averagePrice: 1800, sold: 1 },
      last30Days: { averagePrice: 1800, sold: 1 },
    });

    const { body: page } = await api.http.post('/listings/item').send({ urn, sort: 'price' }).expect(200);
    expect(page.hits.map((h: { condition: string; priceGuide: unknown }) => [h.condition, h.priceGuide])).toEqual([
      ['GOOD', guide.groups[1]],
      ['MINT', guide.groups[0]],
    ]);
  });
});
