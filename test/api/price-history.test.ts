import { newId } from '../../src/ids';
import { recordSales, type CompletedSale } from '../../src/services/catalog/sales-ledger';
import { startTestApi, type TestApi } from '../support/api';
import { seedCatalog } from '../support/fixtures';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const DAY = 86_400_000;
const today = new Date(Math.floor(Date.now() / DAY) * DAY);
const daysAgo = (n: number, hour = 12) => new Date(today.getTime() - n * DAY + hour * 3_600_000);
const isoDate = (d: Date) => d.toISOString().slice(0, 10);

async function sell(itemUrn: string, sales: Array<[unitPrice: number, quantity: number, soldAt: Date]>): Promise<void> {
  const rows: CompletedSale[] = sales.map(([unitPrice, quantity, soldAt]) => ({
    itemUrn,
    listingId: newId(),
    orderId: newId(),
    unitPrice,
    quantity,
    condition: 'NEAR_MINT',
    soldAt,
  }));
  await api.database.db.transaction((tx) => recordSales(tx, rows));
}

describe('GET /search/price-history', () => {
  it('gives one point per UTC day: min, unit-weighted lower median, max and units sold', async () => {
    const { items } = await seedCatalog(api.database.db);
    const urn = items[0]!.urn;
    await sell(urn, [
      [100, 1, daysAgo(2, 1)],
      [500, 1, daysAgo(2, 23)],
      [300, 3, daysAgo(1)], // 3 units at 300 outweigh 2 dearer ones
      [900, 2, daysAgo(1)],
      [200, 1, daysAgo(400)], // outside the window
    ]);
    await sell(items[1]!.urn, [[9999, 1, daysAgo(1)]]); // another item
    const res = await api.http.get('/search/price-history').query({ urn, days: 30 }).expect(200);
    expect(res.body).toEqual({
      urn,
      points: [
        { date: isoDate(daysAgo(2)), min: 100, median: 100, max: 500, count: 2 },
        { date: isoDate(daysAgo(1)), min: 300, median: 300, max: 900, count: 5 },
      ],
    });
  });

  it('is empty for an item never sold, 404 for an unknown item, 400 for a URN ending in "/"', async () => {
    const { items } = await seedCatalog(api.database.db);
    const res = await api.http.get('/search/price-history').query({ urn: items[0]!.urn }).expect(200);
    expect(res.body.points).toEqual([]);
    await api.http.get('/search/price-history').query({ urn: 'pokemon/none/none/1' }).expect(404);
    const bad = await api.http.get('/search/price-history').query({ urn: 'pokemon/base/', days: 0 }).expect(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['days', 'urn']);
  });
});
