import { registerUser, startTestApi, type TestApi } from '../support/api';
import { ADDRESS, fillBasket, sellerWithListings } from '../support/shop';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('basket', () => {
  it('is one open basket per user, created on first use', async () => {
    const buyer = await registerUser(api);
    const [a, b] = await Promise.all([api.http.get('/basket').set(buyer.bearer), api.http.get('/basket').set(buyer.bearer)]);
    expect(a.status).toBe(200);
    expect(a.body.id).toBe(b.body.id);
    expect(a.body.lines).toEqual([]);
    const other = await registerUser(api);
    await api.http.get(`/basket/${a.body.id}/summary`).set(other.bearer).expect(404);
  });

  it('adds, changes and removes lines', async () => {
    const { listingIds } = await sellerWithListings(api, [{ quantity: 3, price: 1000 }]);
    const buyer = await registerUser(api);
    const id = (await api.http.get('/basket').set(buyer.bearer)).body.id;
    await api.http.put(`/basket/${id}/items/${listingIds[0]}`).set(buyer.bearer).send({ quantity: 1 }).expect(200);
    const changed = await api.http.put(`/basket/${id}/items/${listingIds[0]}`).set(buyer.bearer).send({ quantity: 3 }).expect(200);
    expect(changed.body.lines).toEqual([{ listingId: listingIds[0], quantity: 3 }]);
    const tooMany = await api.http.put(`/basket/${id}/items/${listingIds[0]}`).set(buyer.bearer).send({ quantity: 4 }).expect(409);
    expect(tooMany.body.type).toMatch(/insufficient-stock/);
    await api.http.delete(`/basket/${id}/items/${listingIds[0]}`).set(buyer.bearer).expect(204);
    expect((await api.http.get('/basket').set(buyer.bearer)).body.lines).toEqual([]);
    await api.http.delete(`/basket/${id}/items/${listingIds[0]}`).set(buyer.bearer).expect(404);
  });

  it('refuses bad input with every bad field, and own listings', async () => {
    const { seller, listingIds } = await sellerWithListings(api, [{ quantity: 1, price: 500 }]);
    const id = (await api.http.get('/basket').set(seller.bearer)).body.id;
    const badId = await api.http.put(`/basket/${id}/items/not-a-uuid`).set(seller.bearer).send({ quantity: 1 }).expect(400);
    expect(badId.body.errors.map((e: { field: string }) => e.field)).toEqual(['listingId']);
    const badQuantity = await api.http.put(`/basket/${id}/items/${listingIds[0]}`).set(seller.bearer).send({ quantity: 0 }).expect(400);
    expect(badQuantity.body.errors.map((e: { field: string }) => e.field)).toEqual(['quantity']);
    const own = await api.http.put(`/basket/${id}/items/${listingIds[0]}`).set(seller.bearer).send({ quantity: 1 }).expect(409);
    expect(own.body.type).toMatch(/own-listing/);
  });

  it('summarises per seller with delivery, buyer fee and totals in pence', async () => {
    const a = await sellerWithListings(
      api,
      [
        { quantity: 2, price: 1250 },
        { quantity: 1, price: 300 },
      ],
      { name: 'Tracked', price: 250, tracked: true },
    );
    const b = await sellerWithListings(api, [{ quantity: 1, price: 999 }]);
    const buyer = await registerUser(api);
    const id = await fillBasket(api, buyer, [
      { listingId: a.listingIds[0]!, quantity: 2 },
      { listingId: a.listingIds[1]! },
      { listingId: b.listingIds[0]! },
    ]);
    const summary = (await api.http.get(`/basket/${id}/summary`).set(buyer.bearer).expect(200)).body;
    const bySeller = Object.fromEntries(summary.sellers.map((s: { sellerId: string }) => [s.sellerId, s]));
    expect(bySeller[a.seller.id]).toMatchObject({
      subtotal: 2800,
      deliveryCharge: 250,
      total: 3050,
      deliveryOption: { id: a.deliveryOptionId, tracked: true },
    });
    expect(bySeller[b.seller.id]).toMatchObject({ subtotal: 999, deliveryCharge: 150, total: 1149 });
    // Fee: 2% of 3799 rounded up = 76.
    expect(summary).toMatchObject({ subtotal: 3799, delivery: 400, fee: 76, total: 4275, failingListingIds: [] });
    expect(summary.deliveryAddress).toEqual(ADDRESS);
  });

  it('refuses a checkout naming every failing listing, and holds nothing', async () => {
    const { seller, listingIds } = await sellerWithListings(api, [
      { quantity: 1, price: 100 },
      { quantity: 2, price: 100 },
      { quantity: 1, price: 100 },
    ]);
    const buyer = await registerUser(api);
    const id = await fillBasket(api, buyer, [
      { listingId: listingIds[0]! },
      { listingId: listingIds[1]!, quantity: 2 },
      { listingId: listingIds[2]! },
    ]);
    await api.database.db.query(`UPDATE listings SET hidden = true WHERE id = $1`, [listingIds[0]]);
    await api.database.db.query(`UPDATE listings SET quantity = 1 WHERE id = $1`, [listingIds[1]]);
    const res = await api.http
      .post(`/basket/${id}/checkout`)
      .set(buyer.bearer)
      .send({ successUrl: 'https://shop.example/done' })
      .expect(409);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.listingIds.sort()).toEqual([listingIds[0], listingIds[1]].sort());
    const [{ reserved }] = await api.database.db.query(`SELECT sum(reserved)::int AS reserved FROM listings WHERE seller_id = $1`, [
      seller.id,
    ]);
    expect(reserved).toBe(0);
  });

  it('refuses an empty basket and a seller that does not deliver to the address', async () => {
    const buyer = await registerUser(api);
    const id = (await api.http.get('/basket').set(buyer.bearer)).body.id;
    const empty = await api.http
      .post(`/basket/${id}/checkout`)
      .set(buyer.bearer)
      .send({ successUrl: 'https://shop.example/done' })
      .expect(409);
    expect(empty.body).toMatchObject({ listingIds: [] });
    expect(empty.body.type).toMatch(/basket-empty/);

    const { listingIds } = await sellerWithListings(api, [{ quantity: 1, price: 100 }]);
    await api.http.put(`/basket/${id}/items/${listingIds[0]}`).set(buyer.bearer).send({ quantity: 1 }).expect(200);
    await api.http
      .put(`/basket/${id}/delivery`)
      .set(buyer.bearer)
      .send({ address: { ...ADDRESS, country: 'FR' } })
      .expect(200);
    const noDelivery = await api.http
      .post(`/basket/${id}/checkout`)
      .set(buyer.bearer)
      .send({ successUrl: 'https://shop.example/done' })
      .expect(409);
    expect(noDelivery.body.listingIds).toEqual([listingIds[0]]);
  });

  it('validates the checkout body', async () => {
    const buyer = await registerUser(api);
    const id = (await api.http.get('/basket').set(buyer.bearer)).body.id;
    const res = await api.http.post(`/basket/${id}/checkout`).set(buyer.bearer).send({ successUrl: 'javascript:alert(1)' }).expect(400);
    expect(res.body.errors[0].field).toBe('successUrl');
  });
});
