import { registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { fillBasket, pay, sellerWithListings } from '../support/shop';

/** Cancellation before shipment over HTTP on Postgres: the request, the cancel, stock, refund, events, e-mails. */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const q = <T = Record<string, unknown>>(sql: string, args: unknown[] = []): Promise<T[]> => api.database.db.query(sql, args);

/** Two sellers, one listing each (2 units at 1000 + 150 delivery), the buyer buying both units of each. */
async function twoOrderPurchase() {
  const a = await sellerWithListings(api, [{ quantity: 2, price: 1000 }]);
  const b = await sellerWithListings(api, [{ quantity: 2, price: 1000 }]);
  const buyer = await registerUser(api);
  const basketId = await fillBasket(api, buyer, [
    { listingId: a.listingIds[0]!, quantity: 2 },
    { listingId: b.listingIds[0]!, quantity: 2 },
  ]);
  const checkout = await api.http
    .post(`/basket/${basketId}/checkout`)
    .set(buyer.bearer)
    .send({ successUrl: 'https://shop.example/ok' })
    .expect(201);
  const purchaseId = await pay(api, checkout.body.url);
  const orderOf = async (seller: TestUser) => (await api.http.get('/seller/orders').set(seller.bearer).expect(200)).body[0].id as string;
  return { buyer, purchaseId, a: { ...a, orderId: await orderOf(a.seller) }, b: { ...b, orderId: await orderOf(b.seller) } };
}

async function ship(seller: TestUser, orderId: string) {
  const { items } = (await api.http.get(`/seller/orders/${orderId}`).set(seller.bearer).expect(200)).body;
  await api.http
    .post(`/seller/orders/${orderId}`)
    .set(seller.bearer)
    .send({
      action: 'ship',
      shipment: { carrier: 'RM', trackingNumber: 'RM1' },
      items: items.map((i: { id: string; quantity: number }) => ({ id: i.id, quantity: i.quantity })),
    })
    .expect(204);
}

describe('order cancellation before shipment', () => {
  it('buyer asks, seller cancels: stock back, full refund, ORDER_CANCELLED, both told; the other order completes the purchase', async () => {
    const { buyer, purchaseId, a, b } = await twoOrderPurchase();
    await api.http
      .put(`/user/purchases/${purchaseId}`)
      .set(buyer.bearer)
      .send({ action: 'request-cancel', orderId: a.orderId })
      .expect(200);
    const [asked] = await q<{ cancellation_requested_at: Date | null; status: string }>(
      `SELECT cancellation_requested_at, status FROM orders WHERE id = $1`,
      [a.orderId],
    );
    expect(asked).toEqual({ cancellation_requested_at: expect.any(Date), status: 'ACCEPTED' });
    expect(await q(`SELECT kind FROM email_messages WHERE to_address = $1`, [a.seller.email])).toEqual([{ kind: 'order-cancellation' }]);

    await api.http.post(`/seller/orders/${a.orderId}`).set(a.seller.bearer).send({ action: 'cancel' }).expect(204);

    const order = (await api.http.get(`/seller/orders/${a.orderId}`).set(a.seller.bearer).expect(200)).body;
    expect(order.status).toBe('CANCELLED');
    expect(order.items.map((i: { status: string }) => i.status)).toEqual(['CANCELLED']);
    expect(order.adjustments).toEqual([
      expect.objectContaining({ reason: 'CANCELLATION', type: 'REFUND', kind: 'FULL', amount: 2150, caseId: null }),
    ]);
    const [listing] = await q<{ quantity: number; reserved: number }>(`SELECT quantity, reserved FROM listings WHERE id = $1`, [
      a.listingIds[0],
    ]);
    expect(listing).toEqual({ quantity: 2, reserved: 0 });
    expect((await api.http.get('/seller/balance').set(a.seller.bearer)).body).toMatchObject({ pending: 0, available: 0 });
    expect((await api.http.get('/seller/balance').set(b.seller.bearer)).body).toMatchObject({ pending: 2150 - 107 });
    const [fees] = await q<{ fee: number }>(
      `SELECT COALESCE(sum(amount), 0)::int AS fee FROM ledger_entries WHERE order_id = $1 AND account = 'platform_seller_fee'`,
      [a.orderId],
    );
    expect(fees!.fee).toBe(0);
    expect(await q(`SELECT type FROM outbox_events WHERE data->>'orderId' = $1 AND type = 'ORDER_CANCELLED'`, [a.orderId])).toHaveLength(1);
    expect(
      await q(`SELECT data->>'reason' AS reason FROM outbox_events WHERE data->>'orderId' = $1 AND type = 'REFUND_CREATED'`, [a.orderId]),
    ).toEqual([{ reason: 'CANCELLATION' }]);
    expect(await q(`SELECT kind FROM email_messages WHERE to_address = $1`, [buyer.email])).toEqual([{ kind: 'order-cancellation' }]);
    // Each queued message is delivered by its own workflow, requested in the same transaction.
    const [starts] = await q<{ n: number }>(
      `SELECT count(*)::int AS n FROM workflow_starts WHERE workflow_type = 'emailDeliveryWorkflow' AND args->0->>'messageId' IN (SELECT id::text FROM email_messages WHERE kind = 'order-cancellation' AND to_address = ANY($1))`,
      [[buyer.email, a.seller.email]],
    );
    expect(starts!.n).toBe(2);

    const again = await api.http.post(`/seller/orders/${a.orderId}`).set(a.seller.bearer).send({ action: 'cancel' }).expect(409);
    expect(again.body.type).toBe('/problems/order-cancelled');
    const late = await api.http
      .put(`/user/purchases/${purchaseId}`)
      .set(buyer.bearer)
      .send({ action: 'request-cancel', orderId: a.orderId })
      .expect(409);
    expect(late.body.type).toBe('/problems/order-cancelled');

    // The other order goes the normal way; a cancelled sibling does not keep the purchase open.
    await ship(b.seller, b.orderId);
    await api.http.put(`/user/purchases/${purchaseId}`).set(buyer.bearer).send({ action: 'receive', orderId: b.orderId }).expect(200);
    const purchase = (await api.http.get(`/user/purchases/${purchaseId}`).set(buyer.bearer).expect(200)).body;
    expect(purchase.status).toBe('COMPLETED');
    expect(purchase.orders.find((o: { id: string }) => o.id === a.orderId).adjustments).toEqual(order.adjustments);
  });

  it('refuses after shipping (409), leaves stock and money alone, and keeps the parties to their own actions', async () => {
    const { buyer, purchaseId, a, b } = await twoOrderPurchase();
    await ship(a.seller, a.orderId);
    const seller = await api.http.post(`/seller/orders/${a.orderId}`).set(a.seller.bearer).send({ action: 'cancel' }).expect(409);
    expect(seller.body.type).toBe('/problems/order-already-shipped');
    const asked = await api.http
      .put(`/user/purchases/${purchaseId}`)
      .set(buyer.bearer)
      .send({ action: 'request-cancel', orderId: a.orderId })
      .expect(409);
    expect(asked.body.type).toBe('/problems/order-already-shipped');
    expect((await q(`SELECT quantity FROM listings WHERE id = $1`, [a.listingIds[0]]))[0]).toEqual({ quantity: 0 });
    expect((await api.http.get('/seller/balance').set(a.seller.bearer)).body.pending).toBe(2150 - 107);

    // A partly shipped order is too late as well.
    const { items } = (await api.http.get(`/seller/orders/${b.orderId}`).set(b.seller.bearer)).body;
    await api.http
      .post(`/seller/orders/${b.orderId}`)
      .set(b.seller.bearer)
      .send({ action: 'ship', shipment: { carrier: 'RM', trackingNumber: 'RM2' }, items: [{ id: items[0].id, quantity: 1 }] })
      .expect(204);
    expect((await api.http.post(`/seller/orders/${b.orderId}`).set(b.seller.bearer).send({ action: 'cancel' }).expect(409)).body.type).toBe(
      '/problems/order-already-shipped',
    );

    // The buyer cannot cancel outright, the seller has nothing to request, a stranger sees nothing.
    await api.http.put(`/user/purchases/${purchaseId}`).set(buyer.bearer).send({ action: 'cancel', orderId: b.orderId }).expect(400);
    await api.http.post(`/seller/orders/${b.orderId}`).set(b.seller.bearer).send({ action: 'request-cancel' }).expect(400);
    await api.http.post(`/seller/orders/${b.orderId}`).set(b.seller.bearer).send({ action: 'cancel', items: [] }).expect(400);
    await api.http.post(`/seller/orders/${b.orderId}`).set(a.seller.bearer).send({ action: 'cancel' }).expect(404);
  });
});
