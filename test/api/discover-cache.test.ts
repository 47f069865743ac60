import { registerSeller, startTestApi, type TestApi } from '../support/api';
import { insertListing, seedCatalog } from '../support/fixtures';

// The Discover cache as production runs it (every other API test turns it off to read its own
// writes at once): answers are served from memory for DISCOVER_CACHE_MS, then re-read.
const TTL_MS = 400;

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ env: { DISCOVER_CACHE_MS: String(TTL_MS) } });
});
afterAll(() => api.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * After the TTL, an expired answer is served once more while a single refresh runs; then the
 * new one. Reads `read` until it changes from `old` or 2 s pass, returning the last value.
 */
async function afterRefresh<T>(read: () => Promise<T>, old: T): Promise<T> {
  await sleep(TTL_MS + 50);
  const deadline = Date.now() + 2000;
  let value = await read();
  while (value === old && Date.now() < deadline) {
    await sleep(20);
    value = await read();
  }
  return value;
}

async function liveItem() {
  const db = api.database.db;
  const { items } = await seedCatalog(db);
  const seller = await registerSeller(api);
  const urn = items[0]!.urn;
  const listing = await insertListing(db, { sellerId: seller.id, itemUrn: urn, price: 500 });
  return { urn, listing, reprice: (price: number) => db.query('UPDATE listings SET price = $1 WHERE id = $2', [price, listing.id]) };
}

describe('Discover cache (DISCOVER_CACHE_MS)', () => {
  it('serves a bulk lookup from memory until the TTL passes, then refreshes it within one query', async () => {
    const { urn, reprice } = await liveItem();
    const lookup = () =>
      api.http
        .post('/search/lookup/bulk')
        .send({ urns: [urn, 'pokemon/none/x/1'] })
        .expect(200);
    const first = await lookup();
    expect(first.body).toEqual([expect.objectContaining({ urn, price: 500, available: 1 })]);
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.headers['x-unprocessed-urns']).toBe('pokemon/none/x/1');

    await reprice(900);
    expect((await lookup()).body[0].price).toBe(500);
    expect(await afterRefresh(async () => (await lookup()).body[0].price, 500)).toBe(900);
    const later = await lookup();
    expect(later.body[0]).toMatchObject({ urn, price: 900, min: { price: 900 } });
    expect(later.headers['x-unprocessed-count']).toBe('1');
  });

  it('serves a listing search from memory until the TTL passes, then refreshes it within one query', async () => {
    const { urn, listing, reprice } = await liveItem();
    const search = () => api.http.post('/listings/item').send({ urn }).expect(200);
    const first = await search();
    expect(first.body).toMatchObject({ total: 1, hits: [{ id: listing.id, price: 500 }] });
    expect(first.headers['cache-control']).toBe('public, max-age=30');

    await reprice(900);
    expect((await search()).body.hits[0].price).toBe(500);
    expect(await afterRefresh(async () => (await search()).body.hits[0].price, 500)).toBe(900);
  });

  it('keys listing searches by the whole query: another filter is never answered from a different query', async () => {
    const { urn, listing } = await liveItem();
    await api.http.post('/listings/item').send({ urn }).expect(200);
    const none = await api.http
      .post('/listings/item')
      .send({ urn, filters: { priceMin: 501 } })
      .expect(200);
    expect(none.body).toEqual({ total: 0, hits: [] });
    const some = await api.http
      .post('/listings/item')
      .send({ urn, filters: { priceMax: 500 } })
      .expect(200);
    expect(some.body.hits.map((h: { id: string }) => h.id)).toEqual([listing.id]);
  });
});
