import type { DataSource } from 'typeorm';
import { DomainError } from '../../src/services/errors';
import { loadBasketProblem, unfilledReason } from '../../src/services/wants/basket-problem';
import type { OptimizationRequest } from '../../src/services/wants/optimization-request';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertListing, seedCatalog } from '../support/fixtures';
import { insertDeliveryOption, insertWantsList } from '../support/wants';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const request = (overrides: Partial<OptimizationRequest> = {}): OptimizationRequest => ({
  country: 'GB',
  addressId: null,
  maxSellers: null,
  minSellerRating: null,
  excludeSellerIds: [],
  lineIds: null,
  timeLimitMs: 1000,
  ...overrides,
});

describe('the optimizer instance of a wants list (eligibility rules)', () => {
  let db: DataSource;
  let buyer: TestUser;
  let near: TestUser; // delivers to GB at 300 (and 500)
  let cheap: TestUser; // delivers to GB at 200
  let finnish: TestUser; // delivers to FI only
  let away: TestUser; // on vacation
  let suspended: TestUser;
  let charizardA: string;
  let pikachuA: string;
  let charizardB: string;
  const listings: Record<string, string> = {};

  beforeAll(async () => {
    db = api.database.db;
    const a = await seedCatalog(db, { names: ['Charizard', 'Pikachu'] });
    const b = await seedCatalog(db, { names: ['Charizard'] });
    [charizardA, pikachuA] = a.items.map((i) => i.urn) as [string, string];
    charizardB = b.items[0]!.urn;
    buyer = await registerSeller(api, 'buyer');
    [near, cheap, finnish, away, suspended] = (await Promise.all([1, 2, 3, 4, 5].map(() => registerSeller(api)))) as [
      TestUser,
      TestUser,
      TestUser,
      TestUser,
      TestUser,
    ];
    await insertDeliveryOption(db, near.id, 500, ['GB']);
    await insertDeliveryOption(db, near.id, 300, ['GB', 'FR']);
    await insertDeliveryOption(db, cheap.id, 200, ['GB']);
    await insertDeliveryOption(db, finnish.id, 100, ['FI']);
    await insertDeliveryOption(db, away.id, 100, ['GB']);
    await insertDeliveryOption(db, suspended.id, 100, ['GB']);
    await insertDeliveryOption(db, buyer.id, 100, ['GB']);
    const add = async (key: string, sellerId: string, itemUrn: string, fields: Record<string, unknown> = {}) => {
      listings[key] = (await insertListing(db, { sellerId, itemUrn, ...fields })).id;
    };
    await add('nearNM', near.id, charizardA, { condition: 'NEAR_MINT', price: 1000, quantity: 2 });
    await add('nearPlayed', near.id, charizardA, { condition: 'PLAYED', price: 200, quantity: 5 });
    await add('cheapHoloB', cheap.id, charizardB, {
      condition: 'MINT',
      language: 'de',
      price: 900,
      variants: [{ name: 'finish', value: 'holo' }],
    });
    await add('cheapPikachu', cheap.id, pikachuA, { price: 5000, quantity: 3 });
    await add('finnish', finnish.id, charizardA, { price: 500 });
    await add('away', away.id, charizardA, { price: 400 });
    await add('suspended', suspended.id, charizardA, { price: 400 });
    await add('own', buyer.id, charizardA, { price: 300 });
    await db.query(`UPDATE seller_accounts SET vacation = true WHERE user_id = $1`, [away.id]);
    await db.query(`UPDATE seller_accounts SET status = 'SUSPENDED' WHERE user_id = $1`, [suspended.id]);
  });

  it('offers each line only listings that fit it, live, from sellers delivering to the country, never the buyer', async () => {
    const { listId, lineIds } = await insertWantsList(db, buyer.id, [
      { urn: charizardA, quantity: 3, minCondition: 'GOOD', languages: ['en'] },
      { game: 'pokemon', name: 'charizard', variants: [{ name: 'finish', value: 'holo' }] },
      { urn: pikachuA, maxPrice: 3000 },
      { game: 'pokemon', name: 'Charizard', languages: ['ja'] },
    ]);
    const { problem, supply } = await loadBasketProblem(db, listId, buyer.id, request());
    const byLine = Object.fromEntries(problem.lines.map((l) => [l.id, l.listingIds]));
    // Condition order (PLAYED is below GOOD), the finnish-only seller, vacation, suspension and the buyer's own listing leave one.
    expect(byLine[lineIds[0]!]).toEqual([listings.nearNM]);
    // By name, case-blind: another printing (set B) fits; its variants contain the line's.
    expect(byLine[lineIds[1]!]).toEqual([listings.cheapHoloB]);
    expect(byLine[lineIds[2]!]).toEqual([]);
    expect(byLine[lineIds[3]!]).toEqual([]);
    // Each seller at its cheapest option to GB.
    expect(Object.fromEntries(problem.sellers.map((s) => [s.id, s.deliveryPrice]))).toEqual({ [near.id]: 300, [cheap.id]: 200 });
    expect(problem.listings.find((l) => l.id === listings.nearNM)).toMatchObject({ sellerId: near.id, unitPrice: 1000, available: 2 });

    // Fitting: the NM copies, the finnish seller's and the buyer's own (live, any seller); eligible: the NM copies.
    expect(supply.get(lineIds[0]!)).toEqual({ quantity: 3, fitting: 4, withinPrice: 4, eligible: 2 });
    expect(unfilledReason(supply.get(lineIds[0]!)!)).toBe('NOT_ENOUGH_STOCK');
    expect(unfilledReason(supply.get(lineIds[2]!)!)).toBe('OVER_MAX_PRICE');
    expect(unfilledReason(supply.get(lineIds[3]!)!)).toBe('NO_STOCK');
  });

  it('leaves out excluded sellers and sellers rated below the minimum (a seller with no reviews has no rating)', async () => {
    const { listId, lineIds } = await insertWantsList(db, buyer.id, [
      { urn: charizardA, minCondition: 'GOOD' },
      { game: 'pokemon', name: 'Charizard' },
    ]);
    const excluded = await loadBasketProblem(db, listId, buyer.id, request({ excludeSellerIds: [near.id] }));
    expect(excluded.problem.lines[0]!.listingIds).toEqual([]);
    expect(unfilledReason(excluded.supply.get(lineIds[0]!)!)).toBe('NO_ELIGIBLE_SELLER');

    await db.query(`UPDATE users SET reviews_count = 2, rating_sum = 9 WHERE id = $1`, [near.id]);
    const rated = await loadBasketProblem(db, listId, buyer.id, request({ minSellerRating: 4.5 }));
    expect(new Set(rated.problem.listings.map((l) => l.sellerId))).toEqual(new Set([near.id]));
    const stricter = await loadBasketProblem(db, listId, buyer.id, request({ minSellerRating: 4.6 }));
    expect(stricter.problem.listings).toEqual([]);
  });

  it('delivers only where sellers ship, and only the lines asked for', async () => {
    const { listId, lineIds } = await insertWantsList(db, buyer.id, [{ urn: charizardA }, { urn: pikachuA }]);
    const toFrance = await loadBasketProblem(db, listId, buyer.id, request({ country: 'FR' }));
    expect(toFrance.problem.sellers.map((s) => s.id)).toEqual([near.id]);
    const one = await loadBasketProblem(db, listId, buyer.id, request({ lineIds: [lineIds[1]!] }));
    expect(one.problem.lines.map((l) => l.id)).toEqual([lineIds[1]]);
    expect(one.problem.lines[0]!.listingIds).toEqual([listings.cheapPikachu]);
  });
});

describe('Baskets.addPicks (an optimized basket into the basket)', () => {
  it('adds every pick with its delivery choice, or nothing and a 409 naming each pick that changed', async () => {
    const db = api.database.db;
    const { items } = await seedCatalog(db, { names: ['Mew', 'Mewtwo'] });
    const seller = await registerSeller(api);
    const buyer = await registerUser(api, 'picker');
    const option = await insertDeliveryOption(db, seller.id, 250, ['GB']);
    const mew = await insertListing(db, { sellerId: seller.id, itemUrn: items[0]!.urn, price: 700, quantity: 3 });
    const mewtwo = await insertListing(db, { sellerId: seller.id, itemUrn: items[1]!.urn, price: 900, quantity: 1 });

    await db.query(`UPDATE listings SET price = 950 WHERE id = $1`, [mewtwo.id]);
    const refused = await api.services.baskets
      .addPicks(
        buyer.id,
        [
          { listingId: mew.id, quantity: 2, unitPrice: 700 },
          { listingId: mewtwo.id, quantity: 1, unitPrice: 900 },
        ],
        { [seller.id]: option },
        null,
      )
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'optimization-outdated', extensions: { listingIds: [mewtwo.id] } });
    const basket = await api.services.baskets.open(buyer.id);
    expect(basket.lines).toEqual([]);

    const added = await api.services.baskets.addPicks(
      buyer.id,
      [
        { listingId: mew.id, quantity: 2, unitPrice: 700 },
        { listingId: mewtwo.id, quantity: 1, unitPrice: 950 },
      ],
      { [seller.id]: option },
      null,
    );
    expect(added.lines).toEqual(
      expect.arrayContaining([
        { listingId: mew.id, quantity: 2 },
        { listingId: mewtwo.id, quantity: 1 },
      ]),
    );
    const [{ delivery_choices }] = await db.query(`SELECT delivery_choices FROM baskets WHERE id = $1`, [added.id]);
    expect(delivery_choices).toEqual({ [seller.id]: option });
    // Two more of Mew would pass what is available beside the two already in the basket.
    await expect(
      api.services.baskets.addPicks(buyer.id, [{ listingId: mew.id, quantity: 2, unitPrice: 700 }], {}, null),
    ).rejects.toMatchObject({ code: 'optimization-outdated', extensions: { listingIds: [mew.id] } });
  });
});
