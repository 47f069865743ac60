import type { TestUser } from '../support/api';
import { registerUser } from '../support/api';
import { fillBasket, pay, sellerWithListings } from '../support/shop';
import { startStack, type TestStack } from '../support/stack';

/**
 * Seller stats through every write that moves them, on the whole system (API, worker, Temporal
 * dev server, Postgres): each step is a real request, and each answer of GET /seller/stats is
 * read through the per-process cache, so a write that forgot to bump the version fails here.
 */
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(() => stack?.stop());

const stats = async (seller: TestUser) => (await stack.api.http.get('/seller/stats').set(seller.bearer).expect(200)).body;

describe('GET /seller/stats across sale → ship → receive → dispute → propose → close', () => {
  it('counts orders total/open/waiting and open cases after each step', async () => {
    const { api } = stack;
    const { seller, listingIds } = await sellerWithListings(api, [{ quantity: 2, price: 1500 }]);
    const buyer = await registerUser(api, 'statsbuyer');
    expect(await stats(seller)).toEqual({
      orders: { total: 0, open: 0, waiting: 0 },
      cases: { open: 0 },
      listings: { total: 1, invalid: 0 },
    });

    // Sale: one ACCEPTED order, waiting for the seller to ship.
    const basketId = await fillBasket(api, buyer, [{ listingId: listingIds[0]! }]);
    const checkout = await api.http
      .post(`/basket/${basketId}/checkout`)
      .set(buyer.bearer)
      .send({ successUrl: 'https://shop.example/ok' })
      .expect(201);
    const purchaseId = await pay(api, checkout.body.url);
    expect(await stats(seller)).toMatchObject({ orders: { total: 1, open: 1, waiting: 1 }, cases: { open: 0 } });

    // Ship: still open (not received), no longer waiting for the seller.
    const [summary] = (await api.http.get('/seller/orders').set(seller.bearer).expect(200)).body;
    const order = (await api.http.get(`/seller/orders/${summary.id}`).set(seller.bearer).expect(200)).body;
    const item = order.items[0];
    await api.http
      .post(`/seller/orders/${order.id}`)
      .set(seller.bearer)
      .send({ action: 'ship', shipment: { carrier: 'RM', trackingNumber: 'RM123' }, items: [{ id: item.id, quantity: item.quantity }] })
      .expect(204);
    expect(await stats(seller)).toMatchObject({ orders: { total: 1, open: 1, waiting: 0 }, cases: { open: 0 } });

    // Receive: finished.
    await api.http.put(`/user/purchases/${purchaseId}`).set(buyer.bearer).send({ action: 'receive', orderId: order.id }).expect(200);
    expect(await stats(seller)).toMatchObject({ orders: { total: 1, open: 0, waiting: 0 }, cases: { open: 0 } });

    // Dispute: the order is open again (a case is not closed); nothing for the seller to answer yet.
    await api.http
      .put(`/user/purchases/${purchaseId}`)
      .set(buyer.bearer)
      .send({ action: 'dispute', orderId: order.id, reason: 'DAMAGED', items: [{ id: item.id, quantity: 1 }] })
      .expect(200);
    expect(await stats(seller)).toMatchObject({ orders: { total: 1, open: 1, waiting: 0 }, cases: { open: 1 } });

    // The buyer proposes a refund: now the seller must answer it.
    const [opened] = (await api.http.get('/user/cases').set(buyer.bearer).expect(200)).body;
    const proposed = await api.http
      .put(`/user/cases/${opened.id}`)
      .set(buyer.bearer)
      .send({ action: 'propose', type: 'REFUND', amount: 1500, comment: 'Refund please' })
      .expect(200);
    expect(await stats(seller)).toMatchObject({ orders: { total: 1, open: 1, waiting: 1 }, cases: { open: 1 } });

    // The seller accepts: the case closes, nothing is open or waiting.
    const accepted = await api.http
      .put(`/seller/cases/${opened.id}`)
      .set(seller.bearer)
      .send({ action: 'accept', outcomeId: proposed.body.outcomes[0].id })
      .expect(200);
    expect(accepted.body.status).toBe('CLOSED');
    expect(await stats(seller)).toEqual({
      orders: { total: 1, open: 0, waiting: 0 },
      cases: { open: 0 },
      listings: { total: 1, invalid: 0 },
    });
  }, 120_000);
});
