import { apiClient, dataOf, expectStatus } from '../support/client';
import { registerSeller, registerUser, startTestApi, type TestUser } from '../support/api';
import { insertListing, seedCatalog } from '../support/fixtures';
import { checkoutUrl, pay } from '../support/shop';
import { eventually, startStack, type TestStack } from '../support/stack';

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

  it('answers 202 with Location when the answer takes longer than the wait, and the optimization is read there once solved', async () => {
    const { api, env } = stack;
    // A second API on the same database and Temporal that does not wait at all (the stack's workers solve);
    // the same public URL, so it accepts the tokens the first one issues.
    const impatient = await startTestApi({
      temporal: env.client,
      database: api.database,
      env: { WANTS_OPTIMIZATION_WAIT_MS: '0', PUBLIC_BASE_URL: api.baseUrl },
    });
    try {
      const { items } = await seedCatalog(api.database.db, { names: ['Oddish'] });
      await seller(250, [{ urn: items[0]!.urn, price: 120, quantity: 3 }]);
      const buyer = await registerUser(api, 'patient');
      const asBuyer = apiClient(impatient, buyer.bearer);
      const list = await dataOf(asBuyer.POST('/user/wants', { body: { name: 'Grass' } }), 201);
      await dataOf(
        asBuyer.POST('/user/wants/{id}/lines', { params: { path: { id: list.id } }, body: { urn: items[0]!.urn, quantity: 2 } }),
        201,
      );
      const started = await expectStatus(
        asBuyer.POST('/user/wants/{id}/optimizations', { params: { path: { id: list.id } }, body: { country: 'GB' } }),
        202,
      );
      expect(started.data).toMatchObject({ status: 'RUNNING', total: null, picks: null });
      const location = started.response.headers.get('location');
      expect(location).toBe(`/user/wants/${list.id}/optimizations/${started.data!.id}`);
      const done = await eventually(async () => {
        const read = await dataOf(
          asBuyer.GET('/user/wants/{id}/optimizations/{optimizationId}', {
            params: { path: { id: list.id, optimizationId: started.data!.id } },
          }),
        );
        return read.status === 'DONE' ? read : null;
      });
      expect(done).toMatchObject({ solverStatus: 'OPTIMAL', total: 2 * 120 + 250, unfilled: [] });
    } finally {
      await impatient.close();
    }
  });

  it("refuses another user's list, lines of another list, and an outdated basket without changing the basket", async () => {
    const { api } = stack;
    const { items } = await seedCatalog(api.database.db, { names: ['Gloom', 'Vileplume'] });
    const holder = await seller(300, [
      { urn: items[0]!.urn, price: 400, quantity: 1 },
      { urn: items[1]!.urn, price: 600, quantity: 1 },
    ]);
    const buyer = await registerUser(api, 'owner');
    const other = await registerUser(api, 'intruder');
    const asBuyer = apiClient(api, buyer.bearer);
    const list = await dataOf(asBuyer.POST('/user/wants', { body: { name: 'Evolutions' } }), 201);
    const otherList = await dataOf(apiClient(api, other.bearer).POST('/user/wants', { body: { name: 'Mine' } }), 201);
    const foreignLine = await dataOf(
      apiClient(api, other.bearer).POST('/user/wants/{id}/lines', {
        params: { path: { id: otherList.id } },
        body: { urn: items[0]!.urn, quantity: 1 },
      }),
      201,
    );
    for (const urn of [items[0]!.urn, items[1]!.urn]) {
      await dataOf(asBuyer.POST('/user/wants/{id}/lines', { params: { path: { id: list.id } }, body: { urn, quantity: 1 } }), 201);
    }

    await expectStatus(
      apiClient(api, other.bearer).POST('/user/wants/{id}/optimizations', { params: { path: { id: list.id } }, body: { country: 'GB' } }),
      404,
    );
    const mixed = await expectStatus(
      asBuyer.POST('/user/wants/{id}/optimizations', {
        params: { path: { id: list.id } },
        body: { country: 'GB', lineIds: [foreignLine.id] },
      }),
      400,
    );
    expect(mixed.error).toMatchObject({ type: '/problems/validation-failed', errors: [expect.objectContaining({ field: 'lineIds.0' })] });
    await expectStatus(
      asBuyer.POST('/user/wants/{id}/optimizations', { params: { path: { id: list.id } }, body: { country: 'GB', addressId: list.id } }),
      400,
    );
    const [{ count }] = await api.database.db.query(`SELECT count(*)::int AS count FROM wants_optimizations WHERE list_id = $1`, [list.id]);
    expect(count).toBe(0);

    const optimized = await dataOf(
      asBuyer.POST('/user/wants/{id}/optimizations', { params: { path: { id: list.id } }, body: { country: 'GB' } }),
      201,
    );
    expect(optimized).toMatchObject({ total: 1300, sellers: [expect.objectContaining({ sellerId: holder.id, deliveryPrice: 300 })] });
    await expectStatus(
      apiClient(api, other.bearer).GET('/user/wants/{id}/optimizations/{optimizationId}', {
        params: { path: { id: list.id, optimizationId: optimized.id } },
      }),
      404,
    );
    const repriced = optimized.picks!.find((p) => p.unitPrice === 600)!;
    await api.database.db.query(`UPDATE listings SET price = 650 WHERE id = $1`, [repriced.listingId]);
    const outdated = await expectStatus(
      asBuyer.POST('/user/wants/{id}/optimizations/{optimizationId}/basket', {
        params: { path: { id: list.id, optimizationId: optimized.id } },
      }),
      409,
    );
    expect(outdated.error).toMatchObject({ type: '/problems/optimization-outdated', listingIds: [repriced.listingId] });
    const basket = await dataOf(asBuyer.GET('/basket'));
    expect(basket.lines).toEqual([]);
  });
});
