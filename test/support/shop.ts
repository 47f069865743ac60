import type { TestApi, TestUser } from './api';
import { registerSeller, registerUser } from './api';
import { apiClient, dataOf, expectStatus } from './client';
import { insertListing, seedCatalog } from './fixtures';

/** A delivery address as a client sends it and the basket and purchase answer it. */
export const ADDRESS = {
  name: 'Ada Buyer',
  line1: '1 Card Street',
  line2: '',
  city: 'London',
  state: '',
  postalCode: 'N1 1AA',
  country: 'GB',
};

/** The same address as stored, and as the seller order shows it (the spec's `postal_code`). */
const { postalCode, ...unnamed } = ADDRESS;
export const STORED_ADDRESS = { ...unnamed, postal_code: postalCode };

/** A seller with one GB delivery option and one listing per given spec. */
export async function sellerWithListings(
  api: TestApi,
  specs: Array<{ quantity: number; price: number }>,
  delivery = { name: 'Royal Mail 2nd class', price: 150, tracked: false },
): Promise<{ seller: TestUser; listingIds: string[]; deliveryOptionId: string }> {
  const seller = await registerSeller(api);
  const option = await dataOf(
    apiClient(api, seller.bearer).POST('/seller/delivery-options', { body: { ...delivery, countries: ['GB'] } }),
    201,
  );
  const { items } = await seedCatalog(api.database.db, { names: specs.map((_, i) => `Card${i}`) });
  const listingIds: string[] = [];
  for (const [i, spec] of specs.entries()) {
    const listing = await insertListing(api.database.db, { sellerId: seller.id, itemUrn: items[i]!.urn, ...spec });
    listingIds.push(listing.id);
  }
  return { seller, listingIds, deliveryOptionId: option.id };
}

/** Puts the listings (one unit each unless given) in the buyer's basket with the test address. */
export async function fillBasket(api: TestApi, buyer: TestUser, lines: Array<{ listingId: string; quantity?: number }>): Promise<string> {
  const client = apiClient(api, buyer.bearer);
  const basket = await dataOf(client.GET('/basket'));
  for (const line of lines) {
    await expectStatus(
      client.PUT('/basket/{id}/items/{listingId}', {
        params: { path: { id: basket.id, listingId: line.listingId } },
        body: { quantity: line.quantity ?? 1 },
      }),
      200,
    );
  }
  await expectStatus(client.PUT('/basket/{id}/delivery', { params: { path: { id: basket.id } }, body: { address: ADDRESS } }), 200);
  return basket.id;
}

/** The path of the payment page behind a checkout `url` (the test server runs on its own port). */
export const payPath = (url: string) => new URL(url).pathname;

/** The session id of a checkout `url` (the payment page is `/pay/{sessionId}`). */
export const sessionIdOf = (url: string) => payPath(url).split('/').pop()!;

/**
 * Puts the sessions' hold end in the past, as if their hold time had passed: it is a database
 * time, which neither the time-skipping server nor a short CHECKOUT_HOLD_SECONDS moves for one test.
 */
export const runOutHolds = (api: TestApi, sessionIds: string[]) =>
  api.database.db.query(`UPDATE checkout_sessions SET expires_at = now() - interval '1 second' WHERE id = ANY($1)`, [sessionIds]);

/**
 * Settles a checkout through the simulator's `POST /pay/{sessionId}` (the page's form, sent as
 * the JSON the document also accepts). The redirect is not followed: a success answers 303 to
 * the `successUrl`, which is another site.
 */
export const settle = (api: TestApi, url: string, outcome: 'success' | 'failure') =>
  apiClient(api).POST('/pay/{sessionId}', {
    params: { path: { sessionId: sessionIdOf(url) } },
    body: { outcome },
    redirect: 'manual',
    // A failure answers the simulator's HTML page.
    parseAs: 'text',
  });

/** Pays a checkout through the simulator; returns the purchase id from the redirect. */
export async function pay(api: TestApi, url: string): Promise<string> {
  const paid = await expectStatus(settle(api, url, 'success'), 303);
  const location = paid.response.headers.get('location');
  const purchaseId = location ? new URL(location).searchParams.get('purchase') : null;
  if (!purchaseId) throw new Error(`no purchase in ${location}`);
  return purchaseId;
}

/** Opens the checkout of the buyer's basket (201 expected); returns the payment page `url`. */
export async function checkoutUrl(
  api: TestApi,
  buyer: TestUser,
  basketId: string,
  successUrl = 'https://shop.example/ok',
): Promise<string> {
  const checkout = await dataOf(
    apiClient(api, buyer.bearer).POST('/basket/{id}/checkout', { params: { path: { id: basketId } }, body: { successUrl } }),
    201,
  );
  return checkout.url;
}

/**
 * A real purchase of one unit of a new seller's listing, through basket, checkout and the
 * payment simulator; returns the parties, the purchase id and its one order (the buyer's view).
 */
export async function boughtOrder(
  api: TestApi,
  options: { buyerPrefix?: string; quantity?: number; price?: number; successUrl?: string } = {},
) {
  const { seller, listingIds } = await sellerWithListings(api, [{ quantity: options.quantity ?? 2, price: options.price ?? 1500 }]);
  const buyer = await registerUser(api, options.buyerPrefix);
  const basketId = await fillBasket(api, buyer, [{ listingId: listingIds[0]! }]);
  const purchaseId = await pay(api, await checkoutUrl(api, buyer, basketId, options.successUrl));
  const purchase = await dataOf(apiClient(api, buyer.bearer).GET('/user/purchases/{id}', { params: { path: { id: purchaseId } } }));
  return { seller, buyer, listingIds, purchaseId, order: purchase.orders[0]! };
}

/** The buyer disputes one unit of the order's first item as DAMAGED; returns the case it opened. */
export async function disputeFirstItem(
  api: TestApi,
  buyer: TestUser,
  bought: { purchaseId: string; order: { id: string; items: Array<{ id: string }> } },
  comment: string,
) {
  const asBuyer = apiClient(api, buyer.bearer);
  await expectStatus(
    asBuyer.PUT('/user/purchases/{id}', {
      params: { path: { id: bought.purchaseId } },
      body: {
        action: 'dispute',
        orderId: bought.order.id,
        reason: 'DAMAGED',
        comment,
        items: [{ id: bought.order.items[0]!.id, quantity: 1 }],
      },
    }),
    200,
  );
  const [opened] = await dataOf(asBuyer.GET('/user/cases'));
  return opened!;
}

/** A real purchase of the listings (one unit each) through basket, checkout and the payment simulator; returns the purchase. */
export async function buy(api: TestApi, buyer: TestUser, listingIds: string[]) {
  const basketId = await fillBasket(
    api,
    buyer,
    listingIds.map((listingId) => ({ listingId })),
  );
  const purchaseId = await pay(api, await checkoutUrl(api, buyer, basketId, 'https://shop.example/thanks'));
  return dataOf(apiClient(api, buyer.bearer).GET('/user/purchases/{id}', { params: { path: { id: purchaseId } } }));
}
