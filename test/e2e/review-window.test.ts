import { registerUser } from '../support/api';
import { apiClient, dataOf, expectStatus } from '../support/client';
import { checkoutUrl, fillBasket, pay, sellerWithListings } from '../support/shop';
import { eventually, startStack, type TestStack } from '../support/stack';

let stack: TestStack;
beforeAll(async () => {
  // A 2-second window instead of 14 days, and a 5-second automatic receipt.
  stack = await startStack({ REVIEW_WINDOW_SECONDS: '2', ORDER_AUTO_RECEIPT_SECONDS: '5' });
}, 120_000);
afterAll(() => stack?.stop());

const automaticReviews = async (purchaseId: string) => {
  const rows: Array<{ reviewer_id: string; rating: number }> = await stack.api.database.db.query(
    `SELECT r.reviewer_id, r.rating FROM reviews r JOIN orders o ON o.id = r.order_id WHERE o.purchase_id = $1 AND r.automatic ORDER BY r.reviewer_id`,
    [purchaseId],
  );
  return rows.length === 2 ? rows : null;
};

/** Checkout, payment and shipment of one listing: a purchase whose one order is on its way. */
async function shippedPurchase() {
  const api = stack.api;
  const { seller, listingIds } = await sellerWithListings(api, [{ quantity: 1, price: 1200 }]);
  const buyer = await registerUser(api, 'buyer');
  const basketId = await fillBasket(api, buyer, [{ listingId: listingIds[0]! }]);
  const purchaseId = await pay(api, await checkoutUrl(api, buyer, basketId, 'https://shop.example/thanks'));
  const purchase = await dataOf(apiClient(api, buyer.bearer).GET('/user/purchases/{id}', { params: { path: { id: purchaseId } } }));
  const order = purchase.orders[0]!;
  await expectStatus(
    apiClient(api, seller.bearer).POST('/seller/orders/{id}', {
      params: { path: { id: order.id } },
      body: {
        action: 'ship',
        shipment: { carrier: 'Royal Mail', trackingNumber: 'RM1' },
        items: order.items.map((i) => ({ id: i.id, quantity: i.quantity })),
      },
    }),
    204,
  );
  return { buyer, seller, purchaseId, order };
}

it('a purchase completes → its review-window workflow writes the default reviews → aggregates follow', async () => {
  const api = stack.api;
  const { buyer, seller, purchaseId, order } = await shippedPurchase();
  const received = await dataOf(
    apiClient(api, buyer.bearer).PUT('/user/purchases/{id}', {
      params: { path: { id: purchaseId } },
      body: { action: 'receive', orderId: order.id },
    }),
  );
  expect(received.status).toBe('COMPLETED');

  // The window is a workflow an operator finds in the Web UI by the purchase id. It starts from
  // the start outbox just after the receipt commits (with the order's funds release beside it).
  const handle = stack.env.client.workflow.getHandle(`review-window:${purchaseId}`);
  const described = await eventually(() => handle.describe().catch(() => null));
  expect(described.type).toBe('reviewWindowWorkflow');
  expect(await handle.result()).toBe(2);

  expect(await eventually(() => automaticReviews(purchaseId))).toEqual(
    [
      { reviewer_id: buyer.id, rating: 5 },
      { reviewer_id: seller.id, rating: 5 },
    ].sort((a, b) => a.reviewer_id.localeCompare(b.reviewer_id)),
  );
  const sellerProfile = await dataOf(apiClient(api).GET('/profile/{identifier}', { params: { path: { identifier: seller.id } } }));
  expect(sellerProfile).toMatchObject({ reviews: 1, rating: 5, score: 4.17 });
  const sellerOrder = await dataOf(apiClient(api, seller.bearer).GET('/seller/orders/{id}', { params: { path: { id: order.id } } }));
  expect(sellerOrder.reviews).toEqual({ [buyer.id]: 5, [seller.id]: 5 });
  const [intent] = await api.database.db.query(`SELECT started_at, attempts FROM workflow_starts WHERE workflow_id = $1`, [
    `review-window:${purchaseId}`,
  ]);
  expect(intent).toEqual({ started_at: expect.any(Date), attempts: 1 });
}, 60_000);

it('a purchase completed by the automatic receipt opens its window too', async () => {
  const { buyer, purchaseId } = await shippedPurchase();
  // Nobody confirms receipt: order-receipt:{orderId} does, completing the purchase from a worker.
  const handle = stack.env.client.workflow.getHandle(`review-window:${purchaseId}`);
  expect(await eventually(() => handle.result().catch(() => null), 30_000)).toBe(2);
  const purchase = await dataOf(apiClient(stack.api, buyer.bearer).GET('/user/purchases/{id}', { params: { path: { id: purchaseId } } }));
  expect(purchase.status).toBe('COMPLETED');
}, 60_000);
