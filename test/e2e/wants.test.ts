import { apiClient, dataOf, expectStatus } from '../support/client';
import { registerSeller, registerUser, type TestUser } from '../support/api';
import { insertListing, seedCatalog } from '../support/fixtures';
import { checkoutUrl, pay } from '../support/shop';
import { startStack, type TestStack } from '../support/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(() => stack?.stop());

/** A seller delivering to GB for `deliveryPrice`, holding `units` of each named item at its price. */
async function seller(deliveryPrice: number, stock: Array<{ urn: string; price: number; quantity: number }>): Promise<TestUser> {
  const { api } = stack;
  const user = await registerSeller(api);
  await expectStatus(
    apiClient(api, user.bearer).POST('/seller/delivery-options', {
      body: { name: 'Royal Mail', price: deliveryPrice, tracked: false, countries: ['GB'] },
    }),
    201,
  );
  for (const s of stock) await insertListing(api.database.db, { sellerId: user.id, itemUrn: s.urn, price: s.price, quantity: s.quantity });
  return user;
}

describe('wants list → optimizer → basket → paid orders (API → Temporal dev server → both workers → Postgres)', () => {
  it('imports a deck list, optimizes it, and the paid orders are at the sellers the optimizer chose, for the total it promised', async () => {
    const { api } = stack;
    const { items } = await seedCatalog(api.database.db, { names: ['Charizard', 'Blastoise', 'Venusaur'] });
    const [charizard, blastoise, venusaur] = items.map((i) => i.urn) as [string, string, string];
    // Consolidating wins: the cheapest copy of each card is at three sellers (three deliveries),
    // while one seller holds all of them for a little more.
    const a = await seller(300, [
      { urn: charizard, price: 1000, quantity: 4 },
      { urn: blastoise, price: 500, quantity: 2 },
      { urn: venusaur, price: 200, quantity: 1 },
    ]);
    await seller(300, [{ urn: charizard, price: 950, quantity: 4 }]);
    await seller(300, [{ urn: blastoise, price: 450, quantity: 2 }]);
    const buyer = await registerUser(api, 'deckbuyer');
    const asBuyer = apiClient(api, buyer.bearer);
    const address = await dataOf(
      asBuyer.POST('/user/addresses', {
        body: {
          type: 'shipping',
          name: 'Ada Buyer',
          line1: '1 Card Street',
          city: 'London',
          state: '',
          postalCode: 'N1 1AA',
          country: 'GB',
        },
      }),
      201,
    );

    const list = await dataOf(asBuyer.POST('/user/wants', { body: { name: 'Starter deck' } }), 201);
    const imported = await dataOf(
      asBuyer.POST('/user/wants/{id}/import', {
        params: { path: { id: list.id } },
        body: { format: 'decklist', text: '// starters\n4 Charizard\n2x Blastoise\n1 Venusaur\n1 Missingno\n' },
      }),
      200,
    );
    expect(imported.lines).toHaveLength(3);
    expect(imported.unresolved).toEqual([expect.objectContaining({ lineNumber: 5, text: '1 Missingno' })]);

    const optimized = await dataOf(
      asBuyer.POST('/user/wants/{id}/optimizations', { params: { path: { id: list.id } }, body: { addressId: address.id } }),
      201,
    );
    // Everything at a: 4000 + 1000 + 200 + one delivery of 300. The cheapest copies: 3800 + 900 + 200 + three deliveries.
    expect(optimized).toMatchObject({
      status: 'DONE',
      solverStatus: 'OPTIMAL',
      total: 5500,
      itemsTotal: 5200,
      deliveryTotal: 300,
      gap: 0,
      unfilled: [],
    });
    expect(optimized).toMatchObject({ naiveTotal: 5800, lowerBound: 5500 });
    expect(optimized.sellers!.map((s) => s.sellerId)).toEqual([a.id]);
    const read = await dataOf(
      asBuyer.GET('/user/wants/{id}/optimizations/{optimizationId}', { params: { path: { id: list.id, optimizationId: optimized.id } } }),
    );
    expect(read).toEqual(optimized);

    const basket = await dataOf(
      asBuyer.POST('/user/wants/{id}/optimizations/{optimizationId}/basket', {
        params: { path: { id: list.id, optimizationId: optimized.id } },
      }),
    );
    expect(basket.lines).toHaveLength(optimized.picks!.length);
    const purchaseId = await pay(api, await checkoutUrl(api, buyer, basket.id));
    const purchase = await dataOf(asBuyer.GET('/user/purchases/{id}', { params: { path: { id: purchaseId } } }));
    expect({ subtotal: purchase.subtotal, delivery: purchase.delivery }).toEqual({
      subtotal: optimized.itemsTotal,
      delivery: optimized.deliveryTotal,
    });
    expect(purchase.orders.map((o) => o.sellerId)).toEqual([a.id]);
    expect(purchase.orders[0]!.subtotal).toBe(5200);
  }, 60_000);
});
