import { registerSeller, startTestApi, type TestApi } from '../support/api';
import { listenerConnected, soon } from '../support/discover-changes';
import { insertListing, seedCatalog } from '../support/fixtures';

// Listing hits show the seller's public figures (sales, rating), which no change notification
// covers. They are kept apart from the item's listings, for DISCOVER_CACHE_MS only, while the
// listings themselves stay kept until the database notifies a change. A short TTL here, so both
// halves show within the test.
const TTL_MS = 1_000;

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ env: { DISCOVER_CACHE_MS: String(TTL_MS) } });
  await listenerConnected(api);
});
afterAll(() => api.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('refreshes seller figures on kept hits within the TTL, while the listings stay kept until a notified change', async () => {
  const db = api.database.db;
  const { items } = await seedCatalog(db, { names: ['Moltres'] });
  const seller = await registerSeller(api);
  const listing = await insertListing(db, { sellerId: seller.id, itemUrn: items[0]!.urn, price: 500 });
  const hit = async () => {
    const res = await api.http.post('/listings/item').send({ urn: items[0]!.urn }).expect(200);
    return res.body.hits[0] as { id: string; price: number; comment: string; seller: { id: string; sales: number } };
  };
  expect(await hit()).toMatchObject({ id: listing.id, price: 500, comment: '', seller: { id: seller.id, sales: 0 } });

  // Neither change is notified: a seller's figures never are; the comment is written with triggers
  // off (a replica's session), as when a notification is missed.
  await db.query('UPDATE users SET sales_count = 7 WHERE id = $1', [seller.id]);
  await db.transaction(async (tx) => {
    await tx.query(`SET LOCAL session_replication_role = replica`);
    await tx.query(`UPDATE listings SET comment = 'unheard' WHERE id = $1`, [listing.id]);
  });
  await sleep(TTL_MS + 200);
  // Past the TTL: the seller's figures are read again (an expired entry answers once more while it refreshes) ...
  expect(await soon(async () => (await hit()).seller.sales, 7)).toBe(7);
  // ... and the listing is still the kept one: it was not re-read when the TTL passed.
  expect((await hit()).comment).toBe('');

  // A notified change of the listing shows at once.
  await db.query('UPDATE listings SET price = 650 WHERE id = $1', [listing.id]);
  expect(await soon(async () => (await hit()).price, 650)).toBe(650);
  expect(await hit()).toMatchObject({ comment: 'unheard', seller: { sales: 7 } });
});
