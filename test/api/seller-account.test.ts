import { loadItems } from '../../src/services/catalog/item-view';
import { SellerStatsService } from '../../src/services/sellers/seller-stats';
import { createDataSource } from '../../src/db/data-source';
import { registerSeller, startTestApi, type TestApi } from '../support/api';
import { insertListing, seedCatalog, type FixtureItem } from '../support/fixtures';

let api: TestApi;
let items: FixtureItem[];
beforeAll(async () => {
  api = await startTestApi();
  ({ items } = await seedCatalog(api.database.db));
});
afterAll(() => api.close());

const listingBody = (over: Record<string, unknown> = {}) => ({
  urn: items[0]!.urn,
  condition: 'NEAR_MINT',
  language: 'en',
  price: 500,
  quantity: 2,
  ...over,
});

describe('GET /seller/stats', () => {
  it('answers the spec shape; a seller without orders or cases counts zeros', async () => {
    const seller = await registerSeller(api);
    await api.http.post('/seller/listings').set(seller.bearer).send(listingBody()).expect(201);
    await api.http
      .post('/seller/listings')
      .set(seller.bearer)
      .send(listingBody({ price: 0 }))
      .expect(201);
    const res = await api.http.get('/seller/stats').set(seller.bearer).expect(200);
    expect(res.body).toEqual({ orders: { total: 0, open: 0, waiting: 0 }, cases: { open: 0 }, listings: { total: 2, invalid: 1 } });
  });

  it('serves from its cache until a write to a counted row bumps the version, in any process', async () => {
    const seller = await registerSeller(api);
    // A second "API process": its own pool and its own cache over the same database.
    const otherDb = createDataSource({ url: api.database.url, poolSize: 2 });
    await otherDb.initialize();
    try {
      const otherProcess = new SellerStatsService(otherDb);
      expect((await otherProcess.get(seller.id)).listings.total).toBe(0);

      // A write through the API bumps the version at its commit: every process recounts.
      const created = await api.http.post('/seller/listings').set(seller.bearer).send(listingBody()).expect(201);
      expect((await otherProcess.get(seller.id)).listings).toEqual({ total: 1, invalid: 0 });
      await api.http
        .put(`/seller/listings/${created.body.id}`)
        .set(seller.bearer)
        .send(listingBody({ price: 0 }))
        .expect(200);
      expect((await otherProcess.get(seller.id)).listings).toEqual({ total: 1, invalid: 1 });
      await api.http.delete(`/seller/listings/${created.body.id}`).set(seller.bearer).expect(204);
      expect((await otherProcess.get(seller.id)).listings).toEqual({ total: 0, invalid: 0 });

      // So does any statement on a counted row, whatever wrote it: the database bumps it (triggers).
      await insertListing(api.database.db, { sellerId: seller.id, itemUrn: items[1]!.urn });
      expect((await otherProcess.get(seller.id)).listings.total).toBe(1);

      // A write the triggers do not see (turned off for its transaction) is not seen: the cache answers.
      await api.database.db.transaction(async (tx) => {
        await tx.query(`SET LOCAL session_replication_role = replica`);
        await tx.query(`UPDATE listings SET valid = false WHERE seller_id = $1`, [seller.id]);
      });
      expect((await otherProcess.get(seller.id)).listings.invalid).toBe(0);
    } finally {
      await otherDb.destroy();
    }
  });
});

describe('vacation mode and dashboard', () => {
  it("hides the seller's listings from buyers while on, and shows them again when off", async () => {
    const seller = await registerSeller(api);
    const urn = items[2]!.urn;
    await api.http
      .post('/seller/listings')
      .set(seller.bearer)
      .send(listingBody({ urn, quantity: 4 }))
      .expect(201);
    expect((await loadItems(api.database.db, [urn])).get(urn)!.available).toBe(4);

    const on = await api.http.put('/seller/vacation').set(seller.bearer).send({ enabled: true }).expect(200);
    expect(on.body).toMatchObject({ userId: seller.id, vacation: true });
    expect((await loadItems(api.database.db, [urn])).get(urn)!.available).toBe(0);
    // The seller still sees and manages their listings.
    const own = await api.http.get('/seller/listings/items').query({ urn }).set(seller.bearer).expect(200);
    expect(own.body).toHaveLength(1);

    await api.http.put('/seller/vacation').set(seller.bearer).send({ enabled: false }).expect(200);
    expect((await loadItems(api.database.db, [urn])).get(urn)!.available).toBe(4);
    await api.http.put('/seller/vacation').set(seller.bearer).send({ enabled: 'maybe' }).expect(400);
  });

  it('gives signed, expiring payout and billing links that open their pages', async () => {
    const seller = await registerSeller(api);
    const res = await api.http.get('/seller/dashboard').set(seller.bearer).expect(200);
    expect(res.body.links.payouts).toMatch(new RegExp(`^${api.baseUrl}/simulator/payouts/[\\w-]+\\.[\\w-]+$`));
    expect(res.body.links.billing).toMatch(new RegExp(`^${api.baseUrl}/simulator/billing/[\\w-]+\\.[\\w-]+$`));
    expect(new Date(res.body.expiresAt).getTime()).toBeGreaterThan(Date.now());
    for (const link of Object.values(res.body.links) as string[]) await api.http.get(new URL(link).pathname).expect(200);
  });
});

describe('delivery options', () => {
  const option = { name: 'Royal Mail Tracked 48', price: 295, tracked: true, countries: ['gb', 'IE'] };

  it('creates, lists, replaces and deletes, only for their owner', async () => {
    const seller = await registerSeller(api);
    const other = await registerSeller(api);
    const created = await api.http.post('/seller/delivery-options').set(seller.bearer).send(option).expect(201);
    expect(created.body).toMatchObject({ name: 'Royal Mail Tracked 48', price: 295, tracked: true, countries: ['GB', 'IE'] });
    const id = created.body.id;

    expect((await api.http.get('/seller/delivery-options').set(other.bearer).expect(200)).body).toEqual([]);
    await api.http.put(`/seller/delivery-options/${id}`).set(other.bearer).send(option).expect(404);
    await api.http.delete(`/seller/delivery-options/${id}`).set(other.bearer).expect(404);

    const replaced = await api.http
      .put(`/seller/delivery-options/${id}`)
      .set(seller.bearer)
      .send({ ...option, price: 350, tracked: false, countries: ['FR'] })
      .expect(200);
    expect(replaced.body).toMatchObject({ id, price: 350, tracked: false, countries: ['FR'] });
    expect(await api.services.deliveryOptions.availableTo(seller.id, 'fr')).toHaveLength(1);
    expect(await api.services.deliveryOptions.availableTo(seller.id, 'GB')).toHaveLength(0);

    await api.http.delete(`/seller/delivery-options/${id}`).set(seller.bearer).expect(204);
    expect((await api.http.get('/seller/delivery-options').set(seller.bearer).expect(200)).body).toEqual([]);
  });

  it('refuses a bad option with every field listed', async () => {
    const seller = await registerSeller(api);
    const res = await api.http
      .post('/seller/delivery-options')
      .set(seller.bearer)
      .send({ name: '', price: 1.5, tracked: 'yes', countries: ['GBR'] })
      .expect(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['countries.0', 'name', 'price', 'tracked']);
  });

  it('caps a seller at 20 options', async () => {
    const seller = await registerSeller(api);
    for (let i = 0; i < 20; i++) await api.http.post('/seller/delivery-options').set(seller.bearer).send(option).expect(201);
    const res = await api.http.post('/seller/delivery-options').set(seller.bearer).send(option).expect(409);
    expect(res.body.type).toBe('/problems/delivery-option-limit-reached');
  });
});
