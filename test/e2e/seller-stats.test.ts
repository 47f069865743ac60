import type { TestUser } from '../support/api';
import { registerUser } from '../support/api';
import { apiClient, dataOf, expectStatus } from '../support/client';
import { checkoutUrl, fillBasket, pay, sellerWithListings } from '../support/shop';
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

const stats = (seller: TestUser) => dataOf(apiClient(stack.api, seller.bearer).GET('/seller/stats'));

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
    const purchaseId = await pay(api, await checkoutUrl(api, buyer, basketId));
    expect(await stats(seller)).toMatchObject({ orders: { total: 1, open: 1, waiting: 1 }, cases: { open: 0 } });

    // Ship: still open (not received), no longer waiting for the seller.
    const asSeller = apiClient(api, seller.bearer);
    const asBuyer = apiClient(api, buyer.bearer);
    const [summary] = await dataOf(asSeller.GET('/seller/orders'));
    const order = await dataOf(asSeller.GET('/seller/orders/{id}', { params: { path: { id: summary!.id } } }));
    const item = order.items[0]!;
    await expectStatus(
      asSeller.POST('/seller/orders/{id}', {
        params: { path: { id: order.id } },
        body: { action: 'ship', shipment: { carrier: 'RM', trackingNumber: 'RM123' }, items: [{ id: item.id, quantity: item.quantity }] },
      }),
      204,
    );
    expect(await stats(seller)).toMatchObject({ orders: { total: 1, open: 1, waiting: 0 }, cases: { open: 0 } });

    // Receive: finished.
    const purchase = { params: { path: { id: purchaseId } } };
    await expectStatus(asBuyer.PUT('/user/purchases/{id}', { ...purchase, body: { action: 'receive', orderId: order.id } }), 200);
    expect(await stats(seller)).toMatchObject({ orders: { total: 1, open: 0, waiting: 0 }, cases: { open: 0 } });

    // Dispute: the order is open again (a case is not closed); nothing for the seller to answer yet.
    await expectStatus(
      asBuyer.PUT('/user/purchases/{id}', {
        ...purchase,
        body: { action: 'dispute', orderId: order.id, reason: 'DAMAGED', items: [{ id: item.id, quantity: 1 }] },
      }),
      200,
    );
    expect(await stats(seller)).toMatchObject({ orders: { total: 1, open: 1, waiting: 0 }, cases: { open: 1 } });

    // The buyer proposes a refund: now the seller must answer it.
    const [opened] = await dataOf(asBuyer.GET('/user/cases'));
    const theCase = { params: { path: { id: opened!.id } } };
    const proposed = await dataOf(
      asBuyer.PUT('/user/cases/{id}', { ...theCase, body: { action: 'propose', type: 'REFUND', amount: 1500, comment: 'Refund please' } }),
    );
    expect(await stats(seller)).toMatchObject({ orders: { total: 1, open: 1, waiting: 1 }, cases: { open: 1 } });

    // The seller accepts: the case closes, nothing is open or waiting.
    const accepted = await dataOf(
      asSeller.PUT('/seller/cases/{id}', { ...theCase, body: { action: 'accept', outcomeId: proposed.outcomes[0]!.id } }),
    );
    expect(accepted.status).toBe('CLOSED');
    expect(await stats(seller)).toEqual({
      orders: { total: 1, open: 0, waiting: 0 },
      cases: { open: 0 },
      listings: { total: 1, invalid: 0 },
    });
  }, 120_000);
});
