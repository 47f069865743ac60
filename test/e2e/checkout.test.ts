import { registerUser, type TestUser } from '../support/api';
import { pdfText } from '../support/pdf-text';
import { eventually, startStack, type TestStack } from '../support/stack';
import { fillBasket, pay, payPath, sellerWithListings } from '../support/shop';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(() => stack.stop());

const SUCCESS_URL = 'https://shop.example/thanks?from=test';

function checkout(buyer: TestUser, basketId: string) {
  return stack.api.http.post(`/basket/${basketId}/checkout`).set(buyer.bearer).send({ successUrl: SUCCESS_URL });
}

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

  const won = results.filter((r) => r.status === 201);
  const lost = results.filter((r) => r.status !== 201);
  expect(won).toHaveLength(5);
  expect(lost).toHaveLength(45);
  for (const r of lost) {
    expect(r.status).toBe(409);
    expect(r.body.listingIds).toEqual([listingId]);
  }
  expect(await stockOf(listingId)).toEqual({ quantity: 5, reserved: 5 });

  await Promise.all(won.map((r) => pay(api, r.body.url)));
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
  const { url } = (await checkout(buyer, basketId).expect(201)).body;

  const first = await api.http.post(payPath(url)).type('form').send({ outcome: 'success' }).expect(303);
  const replays = await Promise.all([1, 2, 3].map(() => api.http.post(payPath(url)).type('form').send({ outcome: 'success' })));
  const location = new URL(first.headers.location!);
  expect(location.searchParams.get('from')).toBe('test');
  for (const r of replays) {
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe(first.headers.location);
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
  await api.http.post(payPath(url)).type('form').send({ outcome: 'failure' }).expect(409);
});

it('a failed payment releases the holds; the listing is locked only while held', async () => {
  const api = stack.api;
  const { seller, listingIds } = await sellerWithListings(api, [{ quantity: 1, price: 900 }]);
  const buyer = await registerUser(api);
  const basketId = await fillBasket(api, buyer, [{ listingId: listingIds[0]! }]);
  const { url } = (await checkout(buyer, basketId).expect(201)).body;
  const page = await api.http.get(payPath(url)).expect(200);
  expect(page.text).toContain('<form');
  const held = await api.http.get(`/seller/listings/${listingIds[0]}`).set(seller.bearer).expect(200);
  expect(held.body).toMatchObject({ locked: true, available: 0 });

  await api.http.post(payPath(url)).type('form').send({ outcome: 'failure' }).expect(200);
  expect(await stockOf(listingIds[0]!)).toEqual({ quantity: 1, reserved: 0 });
  const freed = await api.http.get(`/seller/listings/${listingIds[0]}`).set(seller.bearer).expect(200);
  expect(freed.body).toMatchObject({ locked: false, available: 1 });
  await api.http.post(payPath(url)).type('form').send({ outcome: 'success' }).expect(409);
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
  const summary = (await api.http.get(`/basket/${basketId}/summary`).set(buyer.bearer).expect(200)).body;
  const { url } = (await checkout(buyer, basketId).expect(201)).body;
  const purchaseId = await pay(api, url);

  // The basket is spent: the next GET /basket is a new, empty one.
  const next = (await api.http.get('/basket').set(buyer.bearer).expect(200)).body;
  expect(next.id).not.toBe(basketId);

  const purchase = (await api.http.get(`/user/purchases/${purchaseId}`).set(buyer.bearer).expect(200)).body;
  expect(purchase).toMatchObject({
    status: 'PAID',
    subtotal: summary.subtotal,
    delivery: summary.delivery,
    fee: summary.fee,
    total: summary.total,
  });
  expect(purchase.orders).toHaveLength(2);
  const listed = (await api.http.get('/user/purchases').set(buyer.bearer).expect(200)).body;
  expect(listed.map((p: { id: string }) => p.id)).toEqual([purchaseId]);
  const invoices = (await api.http.get('/user/invoices').set(buyer.bearer).expect(200)).body;
  expect(invoices).toMatchObject([{ purchaseId, total: summary.total }]);
  const invoice = await api.http.get(`/user/invoices/${invoices[0].id}/pdf`).set(buyer.bearer).responseType('blob').expect(200);
  expect(await pdfText(invoice.body as Buffer)).toContain(invoices[0].number);
  await api.http.get(`/user/invoices/${invoices[0].id}/pdf`).set(a.seller.bearer).expect(404);

  for (const { seller } of [a, b]) {
    const orders = (await api.http.get('/seller/orders?size=50&sort=updatedAt&direction=asc').set(seller.bearer).expect(200)).body;
    expect(orders).toHaveLength(1);
    const order = (await api.http.get(`/seller/orders/${orders[0].id}`).set(seller.bearer).expect(200)).body;
    expect(order).toMatchObject({ sellerId: seller.id, purchaseId, adjustments: [], transfers: [], cases: [], reviews: {} });
    expect(order.purchase.user).toMatchObject({ id: buyer.id, purchases: 1 });
    expect(order.total).toBe(order.subtotal + order.deliveryCharge);
    expect(orders[0].itemCount).toBe(order.items.reduce((n: number, i: { quantity: number }) => n + i.quantity, 0));

    // Another seller sees neither the order nor its slip, and cannot ship it.
    const other = seller === a.seller ? b.seller : a.seller;
    await api.http.get(`/seller/orders/${order.id}`).set(other.bearer).expect(404);
    await api.http.get(`/seller/orders/${order.id}/packing-slip`).set(other.bearer).expect(404);
    await api.http
      .post(`/seller/orders/${order.id}`)
      .set(other.bearer)
      .send({ action: 'ship', shipment: { carrier: 'RM', trackingNumber: 'X' }, items: [{ id: order.items[0].id, quantity: 1 }] })
      .expect(404);

    // Receiving before shipping is refused.
    await api.http.put(`/user/purchases/${purchaseId}`).set(buyer.bearer).send({ action: 'receive', orderId: order.id }).expect(409);

    const pdf = await api.http
      .get(`/seller/orders/${order.id}/packing-slip?format=pdf`)
      .set(seller.bearer)
      .responseType('blob')
      .expect(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    const text = await pdfText(pdf.body as Buffer);
    expect(text).toContain(order.id);
    for (const item of order.items) expect(text).toContain(item.urn);
    const csv = await api.http.get(`/seller/orders/${order.id}/packing-slip?format=csv`).set(seller.bearer).expect(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const [header, ...rows] = csv.text.trim().split('\r\n');
    expect(header).toBe('order_id,item_id,urn,title,condition,language,quantity,price_pence,status');
    expect(rows).toHaveLength(order.items.length);

    for (const item of order.items) {
      await api.http
        .post(`/seller/orders/${order.id}`)
        .set(seller.bearer)
        .send({
          action: 'ship',
          shipment: { carrier: 'Royal Mail', trackingNumber: `RM${item.id.slice(0, 8)}` },
          items: [{ id: item.id, quantity: item.quantity }],
        })
        .expect(204);
    }
    const shipped = (await api.http.get(`/seller/orders/${order.id}`).set(seller.bearer).expect(200)).body;
    expect(shipped.status).toBe('SHIPPED');
    expect(shipped.shipments).toHaveLength(order.items.length);
    expect(shipped.items.every((i: { status: string; shipmentId: string | null }) => i.status === 'SHIPPED' && i.shipmentId)).toBe(true);
  }

  const [first, second] = purchase.orders as Array<{ id: string }>;
  const afterFirst = (
    await api.http.put(`/user/purchases/${purchaseId}`).set(buyer.bearer).send({ action: 'receive', orderId: first!.id }).expect(200)
  ).body;
  expect(afterFirst.status).toBe('PAID');
  const done = (
    await api.http.put(`/user/purchases/${purchaseId}`).set(buyer.bearer).send({ action: 'receive', orderId: second!.id }).expect(200)
  ).body;
  expect(done.status).toBe('COMPLETED');
  expect(done.orders.every((o: { status: string }) => o.status === 'RECEIVED')).toBe(true);

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
  const purchaseId = await pay(api, (await checkout(buyer, basketId).expect(201)).body.url);
  const orderId = (await api.http.get('/seller/orders').set(seller.bearer).expect(200)).body[0].id;
  const itemId = (await api.http.get(`/seller/orders/${orderId}`).set(seller.bearer)).body.items[0].id;

  const bad = await api.http
    .post(`/seller/orders/${orderId}`)
    .set(seller.bearer)
    .send({
      action: 'ship',
      shipment: { carrier: 'RM', trackingNumber: '1' },
      items: [
        { id: itemId, quantity: 4 },
        { id: itemId, quantity: 1 },
      ],
    })
    .expect(400);
  expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['items.0.quantity', 'items.1.id']);

  const ship = (quantity: number) =>
    api.http
      .post(`/seller/orders/${orderId}`)
      .set(seller.bearer)
      .send({ action: 'ship', shipment: { carrier: 'RM', trackingNumber: `T${quantity}` }, items: [{ id: itemId, quantity }] });
  await ship(1).expect(204);
  let order = (await api.http.get(`/seller/orders/${orderId}`).set(seller.bearer)).body;
  expect(order.status).toBe('ACCEPTED');
  expect(order.items.map((i: { quantity: number; status: string }) => [i.quantity, i.status])).toEqual([
    [2, 'ACCEPTED'],
    [1, 'SHIPPED'],
  ]);
  await ship(2).expect(204);
  order = (await api.http.get(`/seller/orders/${orderId}`).set(seller.bearer)).body;
  expect(order.status).toBe('SHIPPED');

  await api.http
    .put(`/user/purchases/${purchaseId}`)
    .set(buyer.bearer)
    .send({ action: 'dispute', orderId, reason: 'DAMAGED', comment: 'bent corner', items: [{ id: itemId, quantity: 1 }] })
    .expect(200);
  const withCase = (await api.http.get(`/seller/orders/${orderId}`).set(seller.bearer)).body;
  expect(withCase.cases).toMatchObject([{ reason: 'DAMAGED', status: 'OPEN', comment: 'bent corner' }]);
  // The case workflow starts from the start outbox just after the dispute commits.
  const caseWorkflow = stack.env.client.workflow.getHandle(withCase.cases[0].workflowId);
  const described = await eventually(() => caseWorkflow.describe().catch(() => null));
  expect(described.status.name).toBe('RUNNING');

  const second = await api.http
    .post(`/seller/orders/${orderId}`)
    .set(seller.bearer)
    .send({ action: 'dispute', reason: 'CHARGEBACK', comment: '', items: [{ id: itemId, quantity: 1 }] })
    .expect(409);
  expect(second.body.type).toMatch(/item-already-disputed/);

  const received = (await api.http.put(`/user/purchases/${purchaseId}`).set(buyer.bearer).send({ action: 'receive', orderId }).expect(200))
    .body;
  expect(received.orders[0].status).toBe('RECEIVED');
  expect(received.status).toBe('PAID');
});

it('assisted address flow to checkout: find a postcode, drill down, retrieve, save, and the purchase ships there', async () => {
  const api = stack.api;
  const shop = await sellerWithListings(api, [{ quantity: 1, price: 1500 }]);
  await api.http
    .post('/seller/delivery-options')
    .set(shop.seller.bearer)
    .send({ name: 'Posti', price: 800, tracked: true, countries: ['FI'] })
    .expect(201);
  const buyer = await registerUser(api);
  const post = (path: string, body: object) =>
    api.http
      .post(path)
      .set(buyer.bearer)
      .send(body)
      .expect((r) => expect(r.status).toBeLessThan(300));

  const [postcode] = (await post('/user/addresses/lookup/find', { text: '00130' })).body;
  expect(postcode).toMatchObject({ type: 'Container', text: '00130' });
  const streets = (await post('/user/addresses/lookup/find', { text: '', container: postcode.id })).body;
  expect(streets.every((s: { type: string }) => s.type === 'Container')).toBe(true);
  const houses = (await post('/user/addresses/lookup/find', { text: '', container: streets[0].id })).body;
  expect(houses[0].type).toBe('Address');
  const found = (await post('/user/addresses/lookup/retrieve', { id: houses[0].id })).body;
  const saved = (
    await post('/user/addresses', {
      type: 'shipping',
      name: 'Aino Buyer',
      line1: found.line1,
      city: found.city,
      state: found.state,
      postalCode: found.postalCode,
      country: found.countryIso2,
      lookupId: found.id,
      isPrimary: true,
    })
  ).body;
  expect(saved).toMatchObject({ isValidated: true, lookupId: found.id, postalCode: '00130' });

  // The new basket starts at the primary shipping address; checkout and payment keep it.
  const basket = (await api.http.get('/basket').set(buyer.bearer).expect(200)).body;
  await api.http.put(`/basket/${basket.id}/items/${shop.listingIds[0]}`).set(buyer.bearer).send({ quantity: 1 }).expect(200);
  await api.http.put(`/basket/${basket.id}/delivery`).set(buyer.bearer).send({ addressId: saved.id }).expect(200);
  const { url } = (await checkout(buyer, basket.id).expect(201)).body;
  const purchaseId = await pay(api, url);
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
  const stats = (await api.http.get('/user/account/stats').set(buyer.bearer).expect(200)).body;
  expect(stats).toMatchObject({ purchases: { total: 1, paid: 1 }, spent: purchase.total });
});
