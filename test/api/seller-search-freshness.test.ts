// Seller search keeps an in-memory index of each seller's listings. Stock held by checkouts
// bumps no listings version; the index follows the database's item change notifications
// instead of reloading every SELLER_SEARCH_CACHE_MS. This test tells the two apart.
import { registerSeller, startTestApi, type TestApi } from '../support/api';
import { seedCatalog } from '../support/fixtures';

const TTL_MS = 300;
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ env: { SELLER_SEARCH_CACHE_MS: String(TTL_MS) } });
});
afterAll(() => api.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Until the API's change listener has its LISTEN in place on this test's database. */
async function listening(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const [{ n }] = await api.database.db.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`,
    );
    if (n > 0) return;
    await sleep(100);
  }
  throw new Error('the change listener never listened');
}

it('keeps the index past the TTL while nothing is notified, and reloads it after a notified change', async () => {
  const { items } = await seedCatalog(api.database.db);
  const seller = await registerSeller(api);
  const created = await api.http
    .post('/seller/listings')
    .set(seller.bearer)
    .send({ urn: items[0]!.urn, condition: 'NEAR_MINT', language: 'en', price: 500, quantity: 3 })
    .expect(201);
  await listening();
  const availability = async () => {
    const res = await api.http.post('/seller/listings/search').set(seller.bearer).send({}).expect(200);
    return res.body.facets.Availability;
  };
  expect(await availability()).toEqual([{ value: 'In Stock', count: 1 }]);

  // A change nobody is told about (triggers off for this transaction): no notification, no version.
  await api.database.db.transaction(async (tx) => {
    await tx.query(`SET LOCAL session_replication_role = replica`);
    await tx.query(`UPDATE listings SET reserved = 3 WHERE id = $1`, [created.body.id]);
  });
  // Answers expire and are recomputed (each served once more while it refreshes); the index does
  // not: it still counts the listing as in stock, many TTLs later.
  for (let round = 0; round < 8; round++) {
    await sleep(TTL_MS);
    expect(await availability()).toEqual([{ value: 'In Stock', count: 1 }]);
  }

  // A notified change of the listing's item: the index is reloaded (within the TTL plus one load).
  await api.database.db.query(`UPDATE listings SET reserved = 3 WHERE id = $1`, [created.body.id]);
  let seen: unknown;
  for (let i = 0; i < 50; i++) {
    seen = await availability();
    if (JSON.stringify(seen) === JSON.stringify([{ value: 'Out of Stock', count: 1 }])) break;
    await sleep(100);
  }
  expect(seen).toEqual([{ value: 'Out of Stock', count: 1 }]);
});
