import { ensureCheckoutExpirySchedule } from '../../src/temporal/checkout-expiry-schedule';
import { workflowIds } from '../../src/temporal/workflow-ids';
import { registerUser, type TestUser } from '../support/api';
import { apiClient, dataOf, expectStatus, type Schemas } from '../support/client';
import { pdfText } from '../support/pdf-text';
import { eventually, startStack, type TestStack } from '../support/stack';
import { fillBasket, pay, runOutHolds, sellerWithListings, sessionIdOf, settle } from '../support/shop';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(() => stack.stop());

const SUCCESS_URL = 'https://shop.example/thanks?from=test';

function checkout(buyer: TestUser, basketId: string) {
  return apiClient(stack.api, buyer.bearer).POST('/basket/{id}/checkout', {
    params: { path: { id: basketId } },
    body: { successUrl: SUCCESS_URL },
  });
}
/** The payment page `url` of a checkout that must open (201). */
const checkoutUrl = async (buyer: TestUser, basketId: string) => (await dataOf(checkout(buyer, basketId), 201)).url;

const stockOf = async (listingId: string) =>
  (await stack.api.database.db.query(`SELECT quantity, reserved FROM listings WHERE id = $1`, [listingId]))[0] as {
    quantity: number;
    reserved: number;
  };

it('50 buyers check out the last 5 units at once: exactly 5 succeed and stock never goes negative', async () => {
  const api = stack.api;
  const { listingIds } = await sellerWithListings(api, [{ quantity: 5, price: 2000 }]);
  const listingId = listingIds[0]!;
  const buyers = await Promise.all(Array.from({ length: 50 }, () => registerUser(api, 'racer')));
  const baskets = await Promise.all(buyers.map((b) => fillBasket(api, b, [{ listingId }])));

  const results = await Promise.all(buyers.map((b, i) => checkout(b, baskets[i]!)));

  const won = results.filter((r) => r.response.status === 201);
  const lost = results.filter((r) => r.response.status !== 201);
  expect(won).toHaveLength(5);
  expect(lost).toHaveLength(45);
  for (const r of lost) {
    expect(r.response.status).toBe(409);
    expect(r.error).toMatchObject({ listingIds: [listingId] });
  }
  expect(await stockOf(listingId)).toEqual({ quantity: 5, reserved: 5 });

  await Promise.all(won.map((r) => pay(api, r.data!.url)));
  expect(await stockOf(listingId)).toEqual({ quantity: 0, reserved: 0 });
  const [{ holds }] = await api.database.db.query(
    `SELECT count(*)::int AS holds FROM listing_holds WHERE listing_id = $1 AND released_at IS NULL`,
    [listingId],
  );
  expect(holds).toBe(0);
}, 240_000);

it('a replayed payment confirmation changes nothing: one purchase, one decrement, one ORDER_CREATED per order', async () => {
  const api = stack.api;
  const a = await sellerWithListings(api, [{ quantity: 3, price: 500 }]);
  const b = await sellerWithListings(api, [{ quantity: 2, price: 700 }]);
  const buyer = await registerUser(api);
  const basketId = await fillBasket(api, buyer, [{ listingId: a.listingIds[0]!, quantity: 2 }, { listingId: b.listingIds[0]! }]);
  const url = await checkoutUrl(buyer, basketId);

  const first = await expectStatus(settle(api, url, 'success'), 303);
  const replays = await Promise.all([1, 2, 3].map(() => settle(api, url, 'success')));
  const location = new URL(first.response.headers.get('location')!);
  expect(location.searchParams.get('from')).toBe('test');
  for (const r of replays) {
    expect(r.response.status).toBe(303);
    expect(r.response.headers.get('location')).toBe(first.response.headers.get('location'));
  }

  const db = api.database.db;
  const [{ purchases }] = await db.query(`SELECT count(*)::int AS purchases FROM purchases WHERE buyer_id = $1`, [buyer.id]);
  expect(purchases).toBe(1);
  expect(await stockOf(a.listingIds[0]!)).toEqual({ quantity: 1, reserved: 0 });
  expect(await stockOf(b.listingIds[0]!)).toEqual({ quantity: 1, reserved: 0 });
  const orders: Array<{ id: string }> = await db.query(`SELECT id FROM orders WHERE purchase_id = $1`, [
    location.searchParams.get('purchase'),
  ]);
  expect(orders).toHaveLength(2);
  const events: Array<{ order_id: string; n: number }> = await db.query(
    `SELECT data->>'orderId' AS order_id, count(*)::int AS n FROM outbox_events WHERE type = 'ORDER_CREATED' AND data->>'orderId' = ANY($1) GROUP BY 1`,
    [orders.map((o) => o.id)],
  );
  expect(events.map((e) => e.n)).toEqual([1, 1]);

  // A failure after success is refused and still changes nothing.
  await expectStatus(settle(api, url, 'failure'), 409);
});

it('a failed payment releases the holds; the listing is locked only while held', async () => {
  const api = stack.api;
  const { seller, listingIds } = await sellerWithListings(api, [{ quantity: 1, price: 900 }]);
  const buyer = await registerUser(api);
  const basketId = await fillBasket(api, buyer, [{ listingId: listingIds[0]! }]);
  const url = await checkoutUrl(buyer, basketId);
  const page = await dataOf(apiClient(api).GET('/pay/{sessionId}', { params: { path: { sessionId: sessionIdOf(url) } }, parseAs: 'text' }));
  expect(page).toContain('<form');
  const listing = () => dataOf(apiClient(api, seller.bearer).GET('/seller/listings/{id}', { params: { path: { id: listingIds[0]! } } }));
  expect(await listing()).toMatchObject({ locked: true, available: 0 });

  await expectStatus(settle(api, url, 'failure'), 200);
  expect(await stockOf(listingIds[0]!)).toEqual({ quantity: 1, reserved: 0 });
  expect(await listing()).toMatchObject({ locked: false, available: 1 });
  await expectStatus(settle(api, url, 'success'), 409);
});

it('a hold that has run out: the page says expired, a late payment is refused and frees the stock, the Schedule sweeps the rest', async () => {
  const api = stack.api;
  const db = api.database.db;
  const { listingIds } = await sellerWithListings(api, [
    { quantity: 1, price: 900 },
    { quantity: 1, price: 900 },
  ]);
  const [paidLate, abandoned] = (await Promise.all(
    listingIds.map(async (listingId) => {
      const buyer = await registerUser(api);
      return { listingId, url: await checkoutUrl(buyer, await fillBasket(api, buyer, [{ listingId }])) };
    }),
  )) as [{ listingId: string; url: string }, { listingId: string; url: string }];
  // Both holds' time passes; nothing has swept them yet.
  await runOutHolds(
    api,
    [paidLate, abandoned].map((c) => sessionIdOf(c.url)),
  );
  const page = await dataOf(
    apiClient(api).GET('/pay/{sessionId}', { params: { path: { sessionId: sessionIdOf(paidLate.url) } }, parseAs: 'text' }),
  );
  expect(page).toContain('<dd>expired</dd>');
  expect(page).not.toContain('<form');

  const late = await settle(api, paidLate.url, 'success');
  expect(late.response.status).toBe(409);
  expect(late.error).toMatchObject({ type: '/problems/checkout-closed', detail: 'This checkout is already expired.' });
  expect(await stockOf(paidLate.listingId)).toEqual({ quantity: 1, reserved: 0 });
  expect(await stockOf(abandoned.listingId)).toEqual({ quantity: 1, reserved: 1 });

  await ensureCheckoutExpirySchedule(stack.env.client, { taskQueue: api.config.temporal.taskQueue, everyMs: 1000 });
  try {
    await eventually(async () => ((await stockOf(abandoned.listingId)).reserved === 0 ? true : null));
  } finally {
    await stack.env.client.schedule.getHandle(workflowIds.checkoutExpirySchedule).delete();
  }
  const [{ status }] = await db.query(`SELECT status FROM checkout_sessions WHERE id = $1`, [sessionIdOf(abandoned.url)]);
  expect(status).toBe('EXPIRED');
  const [{ holds }] = await db.query(
    `SELECT count(*)::int AS holds FROM listing_holds WHERE listing_id = ANY($1) AND released_at IS NULL`,
    [listingIds],
  );
  expect(holds).toBe(0);
});

it('end to end: two sellers, checkout, payment, two orders, each seller ships, buyer receives, purchase COMPLETED', async () => {
  const api = stack.api;
  const a = await sellerWithListings(api, [
    { quantity: 4, price: 1500 },
    { quantity: 1, price: 250 },
  ]);
  const b = await sellerWithListings(api, [{ quantity: 1, price: 4000 }]);
  const buyer = await registerUser(api);
  const basketId = await fillBasket(api, buyer, [
    { listingId: a.listingIds[0]!, quantity: 3 },
    { listingId: a.listingIds[1]! },
    { listingId: b.listingIds[0]! },
  ]);
  const asBuyer = apiClient(api, buyer.bearer);
  const summary = await dataOf(asBuyer.GET('/basket/{id}/summary', { params: { path: { id: basketId } } }));
  const purchaseId = await pay(api, await checkoutUrl(buyer, basketId));

  // The basket is spent: the next GET /basket is a new, empty one.
  const next = await dataOf(asBuyer.GET('/basket'));
  expect(next.id).not.toBe(basketId);

  const thePurchase = { params: { path: { id: purchaseId } } };
  const purchase = await dataOf(asBuyer.GET('/user/purchases/{id}', thePurchase));
  expect(purchase).toMatchObject({
    status: 'PAID',
    subtotal: summary.subtotal,
    delivery: summary.delivery,
    fee: summary.fee,
    total: summary.total,
  });
  expect(purchase.orders).toHaveLength(2);
  const listed = await dataOf(asBuyer.GET('/user/purchases'));
  expect(listed.items.map((p) => p.id)).toEqual([purchaseId]);
  expect(listed).toMatchObject({ total: 1, page: 1, size: 20 });
  const invoicePage = await dataOf(asBuyer.GET('/user/invoices'));
  expect(invoicePage).toMatchObject({ items: [{ purchaseId, total: summary.total }], total: 1, page: 1, size: 20 });
  const invoices = invoicePage.items;
  const invoicePdf = { params: { path: { id: invoices[0]!.id } }, parseAs: 'arrayBuffer' } as const;
  const invoice = await dataOf(asBuyer.GET('/user/invoices/{id}/pdf', invoicePdf));
  expect(await pdfText(Buffer.from(invoice))).toContain(invoices[0]!.number);
  await expectStatus(apiClient(api, a.seller.bearer).GET('/user/invoices/{id}/pdf', invoicePdf), 404);

  for (const { seller } of [a, b]) {
    const asSeller = apiClient(api, seller.bearer);
    const orders = await dataOf(asSeller.GET('/seller/orders', { params: { query: { size: 50, sort: 'updatedAt', direction: 'asc' } } }));
    expect(orders).toHaveLength(1);
    const theOrder = { params: { path: { id: orders[0]!.id } } };
    const order = await dataOf(asSeller.GET('/seller/orders/{id}', theOrder));
    expect(order).toMatchObject({ sellerId: seller.id, purchaseId, adjustments: [], transfers: [], cases: [], reviews: {} });
    expect(order.purchase.user).toMatchObject({ id: buyer.id, purchases: 1 });
    expect(order.total).toBe(order.subtotal + order.deliveryCharge);
    expect(orders[0]!.itemCount).toBe(order.items.reduce((n, i) => n + i.quantity, 0));

    // Another seller sees neither the order nor its slip, and cannot ship it.
    const other = apiClient(api, (seller === a.seller ? b.seller : a.seller).bearer);
    await expectStatus(other.GET('/seller/orders/{id}', theOrder), 404);
    await expectStatus(other.GET('/seller/orders/{id}/packing-slip', { ...theOrder, parseAs: 'arrayBuffer' }), 404);
    await expectStatus(
      other.POST('/seller/orders/{id}', {
        ...theOrder,
        body: { action: 'ship', shipment: { carrier: 'RM', trackingNumber: 'X' }, items: [{ id: order.items[0]!.id, quantity: 1 }] },
      }),
      404,
    );

    // Receiving before shipping is refused.
    await expectStatus(asBuyer.PUT('/user/purchases/{id}', { ...thePurchase, body: { action: 'receive', orderId: order.id } }), 409);

    const slip = (format: 'pdf' | 'csv') => ({ params: { path: { id: order.id }, query: { format } } });
    const pdf = await expectStatus(asSeller.GET('/seller/orders/{id}/packing-slip', { ...slip('pdf'), parseAs: 'arrayBuffer' }), 200);
    expect(pdf.response.headers.get('content-type')).toBe('application/pdf');
    const text = await pdfText(Buffer.from(pdf.data!));
    expect(text).toContain(order.id);
    for (const item of order.items) expect(text).toContain(item.urn);
    const csv = await expectStatus(asSeller.GET('/seller/orders/{id}/packing-slip', { ...slip('csv'), parseAs: 'text' }), 200);
    expect(csv.response.headers.get('content-type')).toMatch(/^text\/csv/);
    const [header, ...rows] = csv.data!.trim().split('\r\n');
    expect(header).toBe('order_id,item_id,urn,title,condition,language,quantity,price_pence,status');
    expect(rows).toHaveLength(order.items.length);

    for (const item of order.items) {
      await expectStatus(
        asSeller.POST('/seller/orders/{id}', {
          ...theOrder,
          body: {
            action: 'ship',
            shipment: { carrier: 'Royal Mail', trackingNumber: `RM${item.id.slice(0, 8)}` },
            items: [{ id: item.id, quantity: item.quantity }],
          },
        }),
        204,
      );
    }
    const shipped = await dataOf(asSeller.GET('/seller/orders/{id}', theOrder));
    expect(shipped.status).toBe('SHIPPED');
    expect(shipped.shipments).toHaveLength(order.items.length);
    expect(shipped.items.every((i) => i.status === 'SHIPPED' && i.shipmentId)).toBe(true);
  }

  const [first, second] = purchase.orders;
  const afterFirst = await dataOf(asBuyer.PUT('/user/purchases/{id}', { ...thePurchase, body: { action: 'receive', orderId: first!.id } }));
  expect(afterFirst.status).toBe('PAID');
  const done = await dataOf(asBuyer.PUT('/user/purchases/{id}', { ...thePurchase, body: { action: 'receive', orderId: second!.id } }));
  expect(done.status).toBe('COMPLETED');
  expect(done.orders.every((o) => o.status === 'RECEIVED')).toBe(true);

  const [{ updates }] = await api.database.db.query(
    `SELECT count(*)::int AS updates FROM outbox_events WHERE type = 'ORDER_UPDATED' AND data->>'orderId' = ANY($1)`,
    [[first!.id, second!.id]],
  );
  expect(updates).toBe(5); // three shipments and two receipts
});

it('ships part of an item, and a dispute opens a case that keeps the purchase from completing', async () => {
  const api = stack.api;
  const { seller, listingIds } = await sellerWithListings(api, [{ quantity: 3, price: 100 }]);
  const buyer = await registerUser(api);
  const basketId = await fillBasket(api, buyer, [{ listingId: listingIds[0]!, quantity: 3 }]);
  const purchaseId = await pay(api, await checkoutUrl(buyer, basketId));
  const asSeller = apiClient(api, seller.bearer);
  const asBuyer = apiClient(api, buyer.bearer);
  const orderId = (await dataOf(asSeller.GET('/seller/orders')))[0]!.id;
  const theOrder = { params: { path: { id: orderId } } };
  const itemId = (await dataOf(asSeller.GET('/seller/orders/{id}', theOrder))).items[0]!.id;

  const bad = await expectStatus(
    asSeller.POST('/seller/orders/{id}', {
      ...theOrder,
      body: {
        action: 'ship',
        shipment: { carrier: 'RM', trackingNumber: '1' },
        items: [
          { id: itemId, quantity: 4 },
          { id: itemId, quantity: 1 },
        ],
      },
    }),
    400,
  );
  expect((bad.error as Schemas['ValidationProblem']).errors!.map((e) => e.field)).toEqual(['items.0.quantity', 'items.1.id']);

  const ship = (quantity: number) =>
    asSeller.POST('/seller/orders/{id}', {
      ...theOrder,
      body: { action: 'ship', shipment: { carrier: 'RM', trackingNumber: `T${quantity}` }, items: [{ id: itemId, quantity }] },
    });
  await expectStatus(ship(1), 204);
  let order = await dataOf(asSeller.GET('/seller/orders/{id}', theOrder));
  expect(order.status).toBe('ACCEPTED');
  expect(order.items.map((i) => [i.quantity, i.status])).toEqual([
    [2, 'ACCEPTED'],
    [1, 'SHIPPED'],
  ]);
  await expectStatus(ship(2), 204);
  order = await dataOf(asSeller.GET('/seller/orders/{id}', theOrder));
  expect(order.status).toBe('SHIPPED');

  const thePurchase = { params: { path: { id: purchaseId } } };
  await expectStatus(
    asBuyer.PUT('/user/purchases/{id}', {
      ...thePurchase,
      body: { action: 'dispute', orderId, reason: 'DAMAGED', comment: 'bent corner', items: [{ id: itemId, quantity: 1 }] },
    }),
    200,
  );
  const withCase = await dataOf(asSeller.GET('/seller/orders/{id}', theOrder));
  expect(withCase.cases).toMatchObject([{ reason: 'DAMAGED', status: 'OPEN', comment: 'bent corner' }]);
  // The case workflow starts from the start outbox just after the dispute commits.
  const caseWorkflow = stack.env.client.workflow.getHandle(withCase.cases[0]!.workflowId);
  const described = await eventually(() => caseWorkflow.describe().catch(() => null));
  expect(described.status.name).toBe('RUNNING');

  const second = await expectStatus(
    asSeller.POST('/seller/orders/{id}', {
      ...theOrder,
      body: { action: 'dispute', reason: 'CHARGEBACK', comment: '', items: [{ id: itemId, quantity: 1 }] },
    }),
    409,
  );
  expect(second.error!.type).toMatch(/item-already-disputed/);

  const received = await dataOf(asBuyer.PUT('/user/purchases/{id}', { ...thePurchase, body: { action: 'receive', orderId } }));
  expect(received.orders[0]!.status).toBe('RECEIVED');
  expect(received.status).toBe('PAID');
});

it('assisted address flow to checkout: find a postcode, drill down, retrieve, save, and the purchase ships there', async () => {
  const api = stack.api;
  const shop = await sellerWithListings(api, [{ quantity: 1, price: 1500 }]);
  await expectStatus(
    apiClient(api, shop.seller.bearer).POST('/seller/delivery-options', {
      body: { name: 'Posti', price: 800, tracked: true, countries: ['FI'] },
    }),
    201,
  );
  const buyer = await registerUser(api);
  const asBuyer = apiClient(api, buyer.bearer);
  const find = (body: { text: string; container?: string }) => dataOf(asBuyer.POST('/user/addresses/lookup/find', { body }));

  const [postcode] = await find({ text: '00130' });
  expect(postcode).toMatchObject({ type: 'Container', text: '00130' });
  const streets = await find({ text: '', container: postcode!.id });
  expect(streets.every((s) => s.type === 'Container')).toBe(true);
  const houses = await find({ text: '', container: streets[0]!.id });
  expect(houses[0]!.type).toBe('Address');
  const found = await dataOf(asBuyer.POST('/user/addresses/lookup/retrieve', { body: { id: houses[0]!.id } }));
  const saved = await dataOf(
    asBuyer.POST('/user/addresses', {
      body: {
        type: 'shipping',
        name: 'Aino Buyer',
        line1: found.line1,
        city: found.city,
        state: found.state,
        postalCode: found.postalCode,
        country: found.countryIso2,
        lookupId: found.id,
        isPrimary: true,
      },
    }),
    201,
  );
  expect(saved).toMatchObject({ isValidated: true, lookupId: found.id, postalCode: '00130' });

  // The new basket starts at the primary shipping address; checkout and payment keep it.
  const basket = await dataOf(asBuyer.GET('/basket'));
  await expectStatus(
    asBuyer.PUT('/basket/{id}/items/{listingId}', {
      params: { path: { id: basket.id, listingId: shop.listingIds[0]! } },
      body: { quantity: 1 },
    }),
    200,
  );
  await expectStatus(asBuyer.PUT('/basket/{id}/delivery', { params: { path: { id: basket.id } }, body: { addressId: saved.id } }), 200);
  const purchaseId = await pay(api, await checkoutUrl(buyer, basket.id));
  const [purchase] = await api.database.db.query(`SELECT delivery_address, total FROM purchases WHERE id = $1`, [purchaseId]);
  expect(purchase.delivery_address).toEqual({
    name: 'Aino Buyer',
    line1: found.line1,
    line2: '',
    city: 'Helsinki',
    state: '',
    postal_code: '00130',
    country: 'FI',
  });
  const stats = await dataOf(asBuyer.GET('/user/account/stats'));
  expect(stats).toMatchObject({ purchases: { total: 1, paid: 1 }, spent: purchase.total });
});
