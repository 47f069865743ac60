import { registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { fillBasket, pay, sellerWithListings } from '../support/shop';
import { reconcileFigures } from '../../src/services/money/reconciliation';

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

const DAY_MS = 86_400_000;
const plus = (iso: string, ms: number) => new Date(new Date(iso).getTime() + ms).toISOString();

describe('the cancellation request, a state of the order', () => {
  it('shows in both views with what is due by when, is made once, and the seller declines it', async () => {
    const { buyer, purchaseId, a } = await twoOrderPurchase();
    const sellerView = async () => (await api.http.get(`/seller/orders/${a.orderId}`).set(a.seller.bearer).expect(200)).body;
    const buyerView = async () =>
      (await api.http.get(`/user/purchases/${purchaseId}`).set(buyer.bearer).expect(200)).body.orders.find(
        (o: { id: string }) => o.id === a.orderId,
      );

    // Before any request: the seller's move is to ship, within the dispatch period.
    const fresh = await sellerView();
    expect(fresh.cancellationRequest).toBeNull();
    expect(fresh.nextActions).toEqual([
      { party: 'SELLER', action: 'ship', dueAt: plus(fresh.createdAt, api.config.orders.dispatchSeconds * 1000), afterDue: null },
    ]);
    expect(api.config.orders.dispatchSeconds * 1000).toBe(3 * DAY_MS);

    await api.http
      .put(`/user/purchases/${purchaseId}`)
      .set(buyer.bearer)
      .send({ action: 'request-cancel', orderId: a.orderId })
      .expect(200);
    const asked = await sellerView();
    const requestedAt = asked.cancellationRequest.requestedAt as string;
    expect(asked.cancellationRequest).toEqual({ status: 'PENDING', requestedAt: expect.any(String), answeredAt: null });
    const answerBy = plus(requestedAt, 2 * DAY_MS);
    expect(asked.nextActions).toEqual([
      { party: 'SELLER', action: 'cancel', dueAt: answerBy, afterDue: null },
      { party: 'SELLER', action: 'decline-cancel', dueAt: answerBy, afterDue: null },
      { party: 'SELLER', action: 'ship', dueAt: plus(asked.createdAt, 3 * DAY_MS), afterDue: null },
    ]);
    expect(asked.actions).toEqual(['ship', 'dispute', 'decline-cancel', 'cancel']);
    const seen = await buyerView();
    expect(seen.cancellationRequest).toEqual(asked.cancellationRequest);
    expect(seen.nextActions).toEqual(asked.nextActions);
    expect(seen.actions).toEqual(['dispute']); // asked once: no second request offered

    // Asking again is refused, and the seller is e-mailed once.
    const again = await api.http
      .put(`/user/purchases/${purchaseId}`)
      .set(buyer.bearer)
      .send({ action: 'request-cancel', orderId: a.orderId })
      .expect(409);
    expect(again.body.type).toBe('/problems/cancellation-already-requested');
    expect(await q(`SELECT kind FROM email_messages WHERE to_address = $1`, [a.seller.email])).toEqual([{ kind: 'order-cancellation' }]);

    await api.http.post(`/seller/orders/${a.orderId}`).set(a.seller.bearer).send({ action: 'decline-cancel' }).expect(204);
    const declined = await buyerView();
    expect(declined.status).toBe('ACCEPTED');
    expect(declined.cancellationRequest).toEqual({ status: 'DECLINED', requestedAt, answeredAt: expect.any(String) });
    expect(declined.nextActions.map((n: { action: string }) => n.action)).toEqual(['ship']);
    expect((await sellerView()).actions).toEqual(['ship', 'dispute', 'cancel']); // the seller may still cancel
    const [told] = await q<{ text: string }>(`SELECT body_text AS text FROM email_messages WHERE to_address = $1`, [buyer.email]);
    expect(told!.text).toContain('declined your request to cancel');
    const twice = await api.http.post(`/seller/orders/${a.orderId}`).set(a.seller.bearer).send({ action: 'decline-cancel' }).expect(409);
    expect(twice.body.type).toBe('/problems/no-pending-cancellation-request');
    const refused = await api.http
      .put(`/user/purchases/${purchaseId}`)
      .set(buyer.bearer)
      .send({ action: 'request-cancel', orderId: a.orderId })
      .expect(409);
    expect(refused.body.type).toBe('/problems/cancellation-already-requested');
  });

  it('counts a shipment as declining a pending request, and a cancellation as accepting it', async () => {
    const { buyer, purchaseId, a, b } = await twoOrderPurchase();
    for (const orderId of [a.orderId, b.orderId])
      await api.http.put(`/user/purchases/${purchaseId}`).set(buyer.bearer).send({ action: 'request-cancel', orderId }).expect(200);
    await ship(a.seller, a.orderId);
    await api.http.post(`/seller/orders/${b.orderId}`).set(b.seller.bearer).send({ action: 'cancel' }).expect(204);
    const { orders } = (await api.http.get(`/user/purchases/${purchaseId}`).set(buyer.bearer).expect(200)).body;
    const byId = new Map(orders.map((o: { id: string }) => [o.id, o]));
    const shipped = byId.get(a.orderId) as {
      cancellationRequest: { status: string };
      nextActions: unknown[];
      deadlines: { autoReceiptAt: string };
    };
    expect(shipped.cancellationRequest.status).toBe('DECLINED');
    // Shipped: the buyer's move, received automatically at the deadline.
    expect(shipped.nextActions).toEqual([
      { party: 'BUYER', action: 'receive', dueAt: shipped.deadlines.autoReceiptAt, afterDue: 'The order is received automatically.' },
    ]);
    const cancelled = byId.get(b.orderId) as { cancellationRequest: { status: string }; nextActions: unknown[] };
    expect(cancelled.cancellationRequest.status).toBe('ACCEPTED');
    expect(cancelled.nextActions).toEqual([]);
  });
});

describe('a purchase nothing of which was sold', () => {
  it('ends CANCELLED with its buyer fee refunded once, and tells the buyer what came back', async () => {
    const { buyer, purchaseId, a, b } = await twoOrderPurchase();
    const before = (await api.http.get(`/user/purchases/${purchaseId}`).set(buyer.bearer).expect(200)).body;
    expect(before).toMatchObject({ status: 'PAID', feeRefunded: 0 });
    expect(before.fee).toBeGreaterThan(0);

    // The first cancellation leaves the other order: the purchase stays PAID, the fee stays.
    await api.http.post(`/seller/orders/${a.orderId}`).set(a.seller.bearer).send({ action: 'cancel' }).expect(204);
    expect((await api.http.get(`/user/purchases/${purchaseId}`).set(buyer.bearer)).body).toMatchObject({ status: 'PAID', feeRefunded: 0 });
    await api.http.post(`/seller/orders/${b.orderId}`).set(b.seller.bearer).send({ action: 'cancel' }).expect(204);

    const after = (await api.http.get(`/user/purchases/${purchaseId}`).set(buyer.bearer).expect(200)).body;
    expect(after).toMatchObject({ status: 'CANCELLED', feeRefunded: before.fee, completedAt: null });
    // Everything the buyer paid came back: both orders' totals and the fee, in the simulator and the ledger.
    const [refunds] = await q<{ simulated: number; ledger: number }>(
      `SELECT (SELECT sum(amount)::int FROM payment_refunds WHERE purchase_id = $1) AS simulated,
              (SELECT sum(e.amount)::int FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id
                WHERE t.purchase_id = $1 AND t.event = 'REFUND' AND e.account = 'refunds') AS ledger`,
      [purchaseId],
    );
    expect(refunds).toEqual({ simulated: before.total, ledger: before.total });
    expect(
      await q(`SELECT idempotency_key FROM ledger_transactions WHERE purchase_id = $1 AND order_id IS NULL AND event = 'REFUND'`, [
        purchaseId,
      ]),
    ).toEqual([{ idempotency_key: `buyer-fee:${purchaseId}` }]);
    expect((await api.http.get('/user/account/stats').set(buyer.bearer).expect(200)).body.spent).toBe(0);

    const texts = (
      await q<{ text: string }>(`SELECT body_text AS text FROM email_messages WHERE to_address = $1 ORDER BY created_at, id`, [buyer.email])
    ).map((m) => m.text);
    expect(texts).toHaveLength(2);
    expect(texts[0]).toBe('The seller cancelled this order. You have been refunded its total, £21.50.');
    expect(texts[1]).toContain('You have been refunded its total, £21.50.');
    expect(texts[1]).toContain(`its service fee of £0.${String(before.fee).padStart(2, '0')} has been refunded too`);
    for (const t of texts) expect(t).not.toContain('in full');

    const filtered = (await api.http.get('/user/purchases?status=CANCELLED').set(buyer.bearer).expect(200)).body;
    expect(filtered).toMatchObject({ total: 1, page: 1 });
    expect(filtered.items.map((p: { id: string }) => p.id)).toEqual([purchaseId]);
    expect(
      await reconcileFigures(api.database.db, {
        sellerFeeBps: api.config.money.sellerFeeBps,
        scope: { sellerIds: [a.seller.id, b.seller.id], buyerIds: [buyer.id] },
      }),
    ).toEqual([]);
  });
});
