import type { TestApi, TestUser } from './api';
import { registerSeller } from './api';
import { insertListing, seedCatalog } from './fixtures';

export const ADDRESS = {
  name: 'Ada Buyer',
  line1: '1 Card Street',
  line2: '',
  city: 'London',
  state: '',
  postal_code: 'N1 1AA',
  country: 'GB',
};

/** A seller with one GB delivery option and one listing per given spec. */
export async function sellerWithListings(
  api: TestApi,
  specs: Array<{ quantity: number; price: number }>,
  delivery = { name: 'Royal Mail 2nd class', price: 150, tracked: false },
): Promise<{ seller: TestUser; listingIds: string[]; deliveryOptionId: string }> {
  const seller = await registerSeller(api);
  const option = await api.http
    .post('/seller/delivery-options')
    .set(seller.bearer)
    .send({ ...delivery, countries: ['GB'] })
    .expect(201);
  const { items } = await seedCatalog(api.database.db, { names: specs.map((_, i) => `Card${i}`) });
  const listingIds: string[] = [];
  for (const [i, spec] of specs.entries()) {
    const listing = await insertListing(api.database.db, { sellerId: seller.id, itemUrn: items[i]!.urn, ...spec });
    listingIds.push(listing.id);
  }
  return { seller, listingIds, deliveryOptionId: option.body.id };
}

/** Puts the listings (one unit each unless given) in the buyer's basket with the test address. */
export async function fillBasket(api: TestApi, buyer: TestUser, lines: Array<{ listingId: string; quantity?: number }>): Promise<string> {
  const basket = await api.http.get('/basket').set(buyer.bearer).expect(200);
  for (const line of lines) {
    await api.http
      .put(`/basket/${basket.body.id}/items/${line.listingId}`)
      .set(buyer.bearer)
      .send({ quantity: line.quantity ?? 1 })
      .expect(200);
  }
  await api.http.put(`/basket/${basket.body.id}/delivery`).set(buyer.bearer).send({ address: ADDRESS }).expect(200);
  return basket.body.id;
}

/** The path of the payment page behind a checkout `url` (the test server runs on its own port). */
export const payPath = (url: string) => new URL(url).pathname;

/** Pays a checkout through the simulator; returns the purchase id from the redirect. */
export async function pay(api: TestApi, url: string): Promise<string> {
  const res = await api.http.post(payPath(url)).type('form').send({ outcome: 'success' }).expect(303);
  const purchaseId = new URL(res.headers.location!).searchParams.get('purchase');
  if (!purchaseId) throw new Error(`no purchase in ${res.headers.location}`);
  return purchaseId;
}

/** A real purchase of the listings (one unit each) through basket, checkout and the payment simulator; returns the purchase. */
export async function buy(
  api: TestApi,
  buyer: TestUser,
  listingIds: string[],
): Promise<{ id: string; orders: Array<{ id: string; sellerId: string; total: number }> }> {
  const basketId = await fillBasket(
    api,
    buyer,
    listingIds.map((listingId) => ({ listingId })),
  );
  const checkout = await api.http
    .post(`/basket/${basketId}/checkout`)
    .set(buyer.bearer)
    .send({ successUrl: 'https://shop.example/thanks' })
    .expect(201);
  const purchaseId = await pay(api, checkout.body.url);
  return (await api.http.get(`/user/purchases/${purchaseId}`).set(buyer.bearer).expect(200)).body;
}
