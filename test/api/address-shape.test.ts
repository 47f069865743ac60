import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertListing, seedCatalog } from '../support/fixtures';
import { checkoutUrl, fillBasket, pay, sellerWithListings } from '../support/shop';

// One address shape (docs/versioning.md): every route that takes an address takes it with the
// Saved address's names, with the former `postal_code`, or as a saved address's `addressId`, and
// answers with the Saved address's names, except the seller order's `purchase.deliveryAddress`,
// whose names the interface specification fixes. No Temporal: workflow starts wait in the outbox.
let api: TestApi;
let buyer: TestUser;
let seller: TestUser;
let savedId: string;
let othersSavedId: string;
let sellersSavedId: string;

const TYPED = { name: 'Ada Buyer', line1: '1 Card Street', line2: '', city: 'London', state: '', country: 'GB' };
const ANSWERED = { ...TYPED, postalCode: 'N1 1AA' };
const SPEC_FIXED = { ...TYPED, postal_code: 'N1 1AA' };

/** The same address given three ways, under the route's field name. */
const threeWays = (field: string, addressId = () => savedId) => [
  { [field]: { ...TYPED, postalCode: 'N1 1AA' } },
  { [field]: { ...TYPED, postal_code: 'N1 1AA' } },
  { addressId: addressId() },
];
/** Refused whatever the route: both spellings at once, and both the address and an id. */
const refusedWays = (field: string) => [
  { [field]: { ...TYPED, postalCode: 'N1 1AA', postal_code: 'N1 1AA' } },
  { [field]: TYPED },
  { [field]: ANSWERED, addressId: savedId },
];

async function saveAddress(user: TestUser): Promise<string> {
  return (
    await api.http
      .post('/user/addresses')
      .set(user.bearer)
      .send({ type: 'shipping', ...ANSWERED })
      .expect(201)
  ).body.id;
}

beforeAll(async () => {
  api = await startTestApi();
  [buyer, seller] = await Promise.all([registerUser(api, 'addrbuyer'), registerSeller(api, 'addrseller')]);
  const other = await registerUser(api, 'addrother');
  [savedId, othersSavedId, sellersSavedId] = await Promise.all([saveAddress(buyer), saveAddress(other), saveAddress(seller)]);
});
afterAll(() => api.close());

describe('basket delivery, and the purchase it becomes', () => {
  it.each([0, 1, 2])('takes the address way %i and answers the saved-address names; the seller order keeps the spec’s', async (way) => {
    const shop = await sellerWithListings(api, [{ quantity: 2, price: 500 }]);
    const basketId = await fillBasket(api, buyer, [{ listingId: shop.listingIds[0]! }]);
    const summary = await api.http.put(`/basket/${basketId}/delivery`).set(buyer.bearer).send(threeWays('address')[way]).expect(200);
    expect(summary.body.deliveryAddress).toEqual(ANSWERED);
    expect((await api.http.get('/basket').set(buyer.bearer).expect(200)).body.deliveryAddress).toEqual(ANSWERED);
    expect((await api.http.get(`/basket/${basketId}/summary`).set(buyer.bearer).expect(200)).body.deliveryAddress).toEqual(ANSWERED);

    const purchaseId = await pay(api, await checkoutUrl(api, buyer, basketId));
    const purchase = (await api.http.get(`/user/purchases/${purchaseId}`).set(buyer.bearer).expect(200)).body;
    expect(purchase.deliveryAddress).toEqual(ANSWERED);
    expect(purchase.orders[0].purchase.deliveryAddress).toEqual(SPEC_FIXED);
    const listed = (await api.http.get('/user/purchases?size=50').set(buyer.bearer).expect(200)).body.items;
    expect(listed.find((p: { id: string }) => p.id === purchaseId).deliveryAddress).toEqual(ANSWERED);
    const order = (await api.http.get(`/seller/orders/${purchase.orders[0].id}`).set(shop.seller.bearer).expect(200)).body;
    expect(order.purchase.deliveryAddress).toEqual(SPEC_FIXED);
  });

  it('refuses both spellings, neither, or an address with an id (400); another user’s address is 404', async () => {
    const { id } = (await api.http.get('/basket').set(buyer.bearer).expect(200)).body;
    for (const body of refusedWays('address')) await api.http.put(`/basket/${id}/delivery`).set(buyer.bearer).send(body).expect(400);
    await api.http.put(`/basket/${id}/delivery`).set(buyer.bearer).send({ addressId: othersSavedId }).expect(404);
  });
});

describe('offer checkout', () => {
  async function acceptedOffer(): Promise<string> {
    const shop = await sellerWithListings(api, [{ quantity: 1, price: 100 }]);
    const { items } = await seedCatalog(api.database.db, { names: ['Mew'] });
    const listing = await insertListing(api.database.db, {
      sellerId: shop.seller.id,
      itemUrn: items[0]!.urn,
      price: 10000,
      quantity: 1,
      offersEnabled: true,
      offerAutoAcceptAt: 9000,
    });
    const offer = await api.http.post('/user/offers').set(buyer.bearer).send({ listingId: listing.id, quantity: 1, unitPrice: 9000 });
    expect(offer.body.status).toBe('ACCEPTED');
    return offer.body.id;
  }
  const checkout = (offerId: string, address: Record<string, unknown>) =>
    api.http
      .post(`/user/offers/${offerId}/checkout`)
      .set(buyer.bearer)
      .send({ successUrl: 'https://shop.example/ok', ...address });

  it.each([0, 1, 2])('takes the address way %i', async (way) => {
    const offerId = await acceptedOffer();
    const { sessionId } = (await checkout(offerId, threeWays('deliveryAddress')[way]!).expect(201)).body;
    const [session] = await api.database.db.query(`SELECT delivery_address FROM checkout_sessions WHERE id = $1`, [sessionId]);
    expect(session.delivery_address).toEqual(SPEC_FIXED);
  });

  it('refuses both spellings, neither, or an address with an id (400); another user’s address is 404', async () => {
    const offerId = await acceptedOffer();
    for (const body of [...refusedWays('deliveryAddress'), {}]) await checkout(offerId, body).expect(400);
    await checkout(offerId, { addressId: othersSavedId }).expect(404);
  });
});

describe('case outcomes: a dispute’s initial outcomes and a proposal', () => {
  /** A paid order of two items: one for the buyer's dispute, one for the seller's. */
  async function paidOrder() {
    const shop = await sellerWithListings(api, [
      { quantity: 1, price: 700 },
      { quantity: 1, price: 800 },
    ]);
    const basketId = await fillBasket(
      api,
      buyer,
      shop.listingIds.map((listingId) => ({ listingId })),
    );
    const purchaseId = await pay(api, await checkoutUrl(api, buyer, basketId));
    const orderId = (await api.http.get(`/user/purchases/${purchaseId}`).set(buyer.bearer).expect(200)).body.orders[0].id;
    const order = (await api.http.get(`/seller/orders/${orderId}`).set(shop.seller.bearer).expect(200)).body;
    return { purchaseId, orderId, itemIds: order.items.map((i: { id: string }) => i.id) as string[], shopSeller: shop.seller };
  }
  const outcomes = (addressId: () => string) =>
    threeWays('deliveryAddress', addressId).map((address, i) => ({ type: i === 2 ? 'REPLACEMENT' : 'RETURN', ...address }));

  it('takes every way in a buyer’s and a seller’s dispute, and answers the saved-address names', async () => {
    const { purchaseId, orderId, itemIds, shopSeller } = await paidOrder();
    // The order's seller proposes with their own saved address.
    const sellerAddress = await saveAddress(shopSeller);
    await api.http
      .put(`/user/purchases/${purchaseId}`)
      .set(buyer.bearer)
      .send({ action: 'dispute', orderId, reason: 'SNAD', items: [{ id: itemIds[0], quantity: 1 }], outcomes: outcomes(() => savedId) })
      .expect(200);
    await api.http
      .post(`/seller/orders/${orderId}`)
      .set(shopSeller.bearer)
      .send({ action: 'dispute', reason: 'OTHER', items: [{ id: itemIds[1], quantity: 1 }], outcomes: outcomes(() => sellerAddress) })
      .expect(204);

    const order = (await api.http.get(`/seller/orders/${orderId}`).set(shopSeller.bearer).expect(200)).body;
    expect(order.cases).toHaveLength(2);
    for (const c of order.cases)
      expect(c.outcomes.map((o: { deliveryAddress: unknown }) => o.deliveryAddress)).toEqual([ANSWERED, ANSWERED, ANSWERED]);
    expect(order.purchase.deliveryAddress).toEqual(SPEC_FIXED);
    const cases = (await api.http.get('/user/cases?size=50').set(buyer.bearer).expect(200)).body;
    const buyersCase = cases.find(
      (c: { orderId: string; outcomes: Array<{ party: string }> }) => c.orderId === orderId && c.outcomes[0]!.party === 'BUYER',
    );
    expect(buyersCase.outcomes.map((o: { deliveryAddress: unknown }) => o.deliveryAddress)).toEqual([ANSWERED, ANSWERED, ANSWERED]);
  });

  it('refuses both spellings, neither, or an address with an id (400); another user’s address is 404', async () => {
    const { purchaseId, orderId, itemIds } = await paidOrder();
    const dispute = (outcome: Record<string, unknown>) =>
      api.http
        .put(`/user/purchases/${purchaseId}`)
        .set(buyer.bearer)
        .send({
          action: 'dispute',
          orderId,
          reason: 'SNAD',
          items: [{ id: itemIds[0], quantity: 1 }],
          outcomes: [{ type: 'RETURN', ...outcome }],
        });
    for (const outcome of refusedWays('deliveryAddress')) await dispute(outcome).expect(400);
    await dispute({ addressId: sellersSavedId }).expect(404);

    // A proposal on an open case: its address is resolved before the case workflow is asked.
    await dispute({}).expect(200);
    const [c] = await api.database.db.query(`SELECT id FROM cases WHERE order_id = $1`, [orderId]);
    const propose = (outcome: Record<string, unknown>) =>
      api.http
        .put(`/user/cases/${c.id}`)
        .set(buyer.bearer)
        .send({ action: 'propose', type: 'RETURN', ...outcome });
    for (const outcome of refusedWays('deliveryAddress')) await propose(outcome).expect(400);
    await propose({ addressId: othersSavedId }).expect(404);
  });
});
