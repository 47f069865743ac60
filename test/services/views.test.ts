import { loadItems } from '../../src/services/catalog/item-view';
import { loadListingViews } from '../../src/services/listings/listing-view';
import { registerSeller, startTestApi, type TestApi } from '../support/api';
import { insertListing, seedCatalog } from '../support/fixtures';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('shared views (on Postgres)', () => {
  it('derives item price and availability from live listings only', async () => {
    const db = api.database.db;
    const { items } = await seedCatalog(db);
    const urn = items[0]!.urn;
    const seller = await registerSeller(api);
    const onVacation = await registerSeller(api);
    await db.query('UPDATE seller_accounts SET vacation = true WHERE user_id = $1', [onVacation.id]);

    await insertListing(db, { sellerId: seller.id, itemUrn: urn, price: 500, quantity: 3, reserved: 1 });
    await insertListing(db, { sellerId: seller.id, itemUrn: urn, price: 900, quantity: 2 });
    await insertListing(db, { sellerId: seller.id, itemUrn: urn, price: 100, quantity: 5, hidden: true });
    await insertListing(db, { sellerId: seller.id, itemUrn: urn, price: 150, quantity: 5, valid: false });
    await insertListing(db, { sellerId: seller.id, itemUrn: urn, price: 120, quantity: 4, reserved: 4 });
    await insertListing(db, { sellerId: seller.id, itemUrn: urn, price: 110, quantity: 1, deletedAt: new Date() });
    await insertListing(db, { sellerId: onVacation.id, itemUrn: urn, price: 50, quantity: 9 });

    const found = await loadItems(db, [urn, items[1]!.urn, 'pokemon/base/none/1']);
    expect([...found.keys()].sort()).toEqual([urn, items[1]!.urn].sort());
    expect(found.get(urn)).toMatchObject({ price: 500, available: 4, quantity: 5, min: { price: 500 }, max: { price: 900 } });
    expect(found.get(urn)!.set).toMatchObject({ counts: { printed: 102, total: 102 }, references: ['BS'] });
    expect(found.get(items[1]!.urn)).toMatchObject({ price: null, available: 0, quantity: 0 });
  });

  it('builds listing views in the order asked, hiding private fields unless asked', async () => {
    const db = api.database.db;
    const { items } = await seedCatalog(db);
    const seller = await registerSeller(api);
    const a = await insertListing(db, { sellerId: seller.id, itemUrn: items[0]!.urn, notes: 'SKU-1', reserved: 1, quantity: 2 });
    const b = await insertListing(db, { sellerId: seller.id, itemUrn: 'pokemon/unknown/x/1', valid: false });
    const views = await loadListingViews(db, [b.id, a.id], { includePrivate: false });
    expect(views.map((v) => v.id)).toEqual([b.id, a.id]);
    expect(views[0]!.item).toBeNull();
    expect(views[1]).toMatchObject({ locked: true, available: 1, seller: { id: seller.id, score: 4 } });
    expect(views[1]).not.toHaveProperty('notes');
    const own = await loadListingViews(db, [a.id], { includePrivate: true });
    expect(own[0]!.notes).toBe('SKU-1');
  });
});
