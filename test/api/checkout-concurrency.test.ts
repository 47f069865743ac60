import { registerUser, startTestApi, type TestApi } from '../support/api';
import { checkoutUrl, fillBasket, pay, sellerWithListings } from '../support/shop';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const SELLERS = 5;
const BUYERS = 20;
const ROUNDS = 4;

describe('concurrent payments', () => {
  // Each payment bumps the counters of every seller in its basket. Before those rows were
  // locked in id order, an UPDATE visited them in physical order, which every update changes:
  // two payments sharing two sellers could lock them in opposite orders, PostgreSQL aborted one
  // as a deadlock and its buyer got a 500. Several rounds, so the rows move between them.
  it('of baskets sharing sellers all commit, and every counter counts each of them', async () => {
    // A listing per payment and seller: shared listings would queue the payments on the first
    // listing's row lock, one after another, and they would never meet at the sellers' rows.
    const specs = Array.from({ length: BUYERS * ROUNDS }, () => ({ quantity: 1, price: 700 }));
    const sellers = await Promise.all(Array.from({ length: SELLERS }, () => sellerWithListings(api, specs)));
    const buyers = await Promise.all(Array.from({ length: BUYERS }, () => registerUser(api)));
    const purchaseIds: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const urls = await Promise.all(
        buyers.map(async (buyer, i) => {
          // Baskets list the sellers in different orders, so nothing lines the payments up by accident.
          const order = i % 2 ? sellers : [...sellers].reverse();
          const basketId = await fillBasket(
            api,
            buyer,
            order.map((s) => ({ listingId: s.listingIds[round * BUYERS + i]! })),
          );
          return checkoutUrl(api, buyer, basketId);
        }),
      );
      purchaseIds.push(...(await Promise.all(urls.map((url) => pay(api, url)))));
    }

    expect(new Set(purchaseIds).size).toBe(BUYERS * ROUNDS);
    const counts: Array<{ id: string; sales_count: number; purchases_count: number }> = await api.database.db.query(
      `SELECT id, sales_count, purchases_count FROM users WHERE id = ANY($1)`,
      [[...sellers.map((s) => s.seller.id), ...buyers.map((b) => b.id)]],
    );
    const byId = new Map(counts.map((c) => [c.id, c]));
    for (const s of sellers) expect(byId.get(s.seller.id)).toMatchObject({ sales_count: BUYERS * ROUNDS, purchases_count: 0 });
    for (const b of buyers) expect(byId.get(b.id)).toMatchObject({ sales_count: 0, purchases_count: ROUNDS });
    const [stock] = await api.database.db.query(
      `SELECT sum(quantity)::int AS left, sum(reserved)::int AS reserved FROM listings WHERE id = ANY($1)`,
      [sellers.flatMap((s) => s.listingIds)],
    );
    expect(stock).toEqual({ left: 0, reserved: 0 });
    // 400 listings, 80 baskets and 80 concurrent payments: about 20 s on a quiet 2-core host, so
    // the default 60 s left no room for the 3x spread between hosts (it ran out once on a loaded one).
  }, 180_000);
});
