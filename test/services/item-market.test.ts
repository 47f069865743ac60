import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { commitHolds, placeHolds, releaseHolds } from '../../src/services/checkout/holds';
import { DomainError } from '../../src/services/errors';
import type { ListingInput } from '../../src/services/listings/listing-input';
import { LIVE_LISTING_SQL } from '../../src/services/listings/visibility';
import { registerSeller, startTestApi, type TestApi } from '../support/api';
import { catalogSearchDrift } from '../support/catalog';
import { seedCatalog } from '../support/fixtures';
import { listingInput } from '../support/listings';
import { prng } from '../support/random';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

interface Market {
  item_urn: string;
  min_price: number;
  max_price: number;
  available: number;
  quantity: number;
}

/** The live-listing aggregates recomputed from scratch with the application's definition. */
async function recomputed(db: DataSource): Promise<Market[]> {
  return db.query(
    `SELECT l.item_urn, min(l.price) AS min_price, max(l.price) AS max_price,
            sum(l.quantity - l.reserved)::int AS available, sum(l.quantity)::int AS quantity
       FROM listings l JOIN seller_accounts sa ON sa.user_id = l.seller_id
      WHERE ${LIVE_LISTING_SQL} GROUP BY l.item_urn ORDER BY l.item_urn`,
  );
}

const stored = (db: DataSource): Promise<Market[]> =>
  db.query(`SELECT item_urn, min_price, max_price, available, quantity FROM item_market ORDER BY item_urn`);

/** A small deterministic PRNG, so a failing workload can be replayed from its seed. */
function seeded(seed: number) {
  const next = prng(seed);
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: T[]): T => xs[Math.floor(next() * xs.length)]! };
}

describe('item_market (precomputed market data)', () => {
  it('equals the aggregates recomputed from listings after a random concurrent workload through the services', async () => {
    const db = api.database.db;
    const { items } = await seedCatalog(db, { names: ['Alakazam', 'Blastoise', 'Charizard', 'Dragonite', 'Eevee', 'Flareon'] });
    const urns = [...items.map((i) => i.urn), 'pokemon/base/not-in-catalog/1'];
    const sellers = await Promise.all([1, 2, 3, 4].map(() => registerSeller(api)));
    const seed = Number(process.env.ITEM_MARKET_SEED ?? 19);
    const rnd = seeded(seed);
    const listings: Array<{ id: string; sellerId: string }> = [];
    const openCheckouts: string[] = [];
    let holdsPlaced = 0;
    const counts: Record<string, number> = {};

    const input = (): ListingInput =>
      listingInput({
        urn: rnd.pick(urns),
        price: rnd.int(10) === 0 ? 0 : 100 + rnd.int(5000), // a zero price is stored as not valid
        quantity: rnd.int(4),
        hidden: rnd.int(6) === 0,
      });

    // Each operation is what a seller, a checkout or an operator does through the services.
    const operations: Record<string, () => Promise<unknown>> = {
      create: async () => {
        const seller = rnd.pick(sellers);
        const view = await api.services.listings.create(seller.id, input());
        listings.push({ id: view.id, sellerId: seller.id });
      },
      update: async () => {
        if (!listings.length) return;
        const l = rnd.pick(listings);
        await api.services.listings.update(l.sellerId, l.id, input());
      },
      edit: async () => {
        // Only the comment changes, which leaves the market as it was.
        if (!listings.length) return;
        const l = rnd.pick(listings);
        const [row] = await db.query(`SELECT item_urn, price, quantity, hidden FROM listings WHERE id = $1`, [l.id]);
        await api.services.listings.update(l.sellerId, l.id, {
          ...input(),
          urn: row.item_urn,
          price: row.price,
          quantity: row.quantity,
          hidden: row.hidden,
          comment: 'edited',
        });
      },
      delete: async () => {
        if (!listings.length) return;
        const l = rnd.pick(listings);
        await api.services.listings.delete(l.sellerId, l.id);
      },
      hold: async () => {
        if (!listings.length) return;
        const checkoutId = randomUUID();
        const lines = [1, 2, 3].slice(0, 1 + rnd.int(3)).map(() => ({ listingId: rnd.pick(listings).id, quantity: 1 }));
        const unique = [...new Map(lines.map((l) => [l.listingId, l])).values()];
        const placed = await db
          .transaction(async (tx) => {
            const failed = await placeHolds(tx, checkoutId, unique, new Date(Date.now() + 60_000));
            if (failed.length) throw new HoldRefused();
          })
          .then(
            () => true,
            (err: unknown) => (err instanceof HoldRefused ? false : Promise.reject(err)),
          );
        if (placed) {
          openCheckouts.push(checkoutId);
          holdsPlaced += 1;
        }
      },
      release: async () => {
        const checkoutId = openCheckouts.splice(rnd.int(openCheckouts.length), 1)[0];
        if (checkoutId) await db.transaction((tx) => releaseHolds(tx, checkoutId));
      },
      sell: async () => {
        const checkoutId = openCheckouts.splice(rnd.int(openCheckouts.length), 1)[0];
        if (checkoutId) await db.transaction((tx) => commitHolds(tx, checkoutId));
      },
      vacation: async () => {
        const seller = rnd.pick(sellers);
        await api.services.sellers.setVacation(seller.id, rnd.int(3) === 0);
      },
    };
    const weights: Array<[string, number]> = [
      ['create', 6],
      ['update', 4],
      ['edit', 1],
      ['delete', 2],
      ['hold', 5],
      ['release', 2],
      ['sell', 2],
      ['vacation', 1],
    ];
    const pickOperation = () => {
      let r = rnd.int(weights.reduce((n, [, w]) => n + w, 0));
      for (const [name, w] of weights) if ((r -= w) < 0) return name;
      return 'create';
    };

    // Waves of concurrent operations: commits over overlapping items race each other. The
    // market is compared after every wave, so a change a later write would repair still shows.
    for (let wave = 0; wave < 40; wave += 1) {
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          const name = pickOperation();
          counts[name] = (counts[name] ?? 0) + 1;
          // Refusals a real client can get (quantity below held units, a held or missing listing) are part of the workload.
          await operations[name]!().catch((err: unknown) => {
            if (!(err instanceof DomainError)) throw err;
          });
        }),
      );
      expect({ wave, market: await stored(db) }).toEqual({ wave, market: await recomputed(db) });
      expect({ wave, searchDrift: await catalogSearchDrift(db) }).toEqual({ wave, searchDrift: [] });
    }

    expect(counts.create).toBeGreaterThan(20);
    expect(holdsPlaced).toBeGreaterThan(10);
    expect((await recomputed(db)).length).toBeGreaterThan(2); // the workload left several items for sale
    expect(await db.query(`SELECT count(*)::int AS n FROM item_market_pending`)).toEqual([{ n: 0 }]);
  });

  it('does not lose a commit that read the item before a concurrent commit of another listing of it', async () => {
    const db = api.database.db;
    const { items } = await seedCatalog(db);
    const urn = items[0]!.urn;
    const seller = await registerSeller(api);
    const a = await api.services.listings.create(seller.id, listingInput({ urn, price: 500, quantity: 1 }));
    const b = await api.services.listings.create(seller.id, listingInput({ urn, price: 700, quantity: 1 }));
    expect(await stored(db).then((rows) => rows.find((r) => r.item_urn === urn))).toMatchObject({
      min_price: 500,
      max_price: 700,
      quantity: 2,
    });

    // T1 changes A and stays open; T2 changes B and commits first; then T1 commits.
    const t1 = db.createQueryRunner();
    await t1.connect();
    await t1.startTransaction();
    await t1.query(`UPDATE listings SET price = 300 WHERE id = $1`, [a.id]);
    await db.query(`UPDATE listings SET price = 900 WHERE id = $1`, [b.id]);
    expect(await stored(db).then((rows) => rows.find((r) => r.item_urn === urn))).toMatchObject({ min_price: 500, max_price: 900 });
    await t1.commitTransaction();
    await t1.release();
    expect(await stored(db).then((rows) => rows.find((r) => r.item_urn === urn))).toMatchObject({
      min_price: 300,
      max_price: 900,
      available: 2,
      quantity: 2,
    });

    // Nothing left for sale: the item has no row, and Item views show null prices.
    await api.services.listings.delete(seller.id, a.id);
    await api.services.listings.delete(seller.id, b.id);
    expect(await stored(db).then((rows) => rows.find((r) => r.item_urn === urn))).toBeUndefined();
    const res = await api.http
      .post('/search/lookup/bulk')
      .send({ urns: [urn] })
      .expect(200);
    expect(res.body[0]).toMatchObject({ price: null, available: 0, quantity: 0, min: { price: null }, max: { price: null } });
  });
  it('keeps up with one statement that touches thousands of items (a bulk import)', async () => {
    const db = api.database.db;
    const seller = await registerSeller(api);
    await db.query(
      `INSERT INTO listings (id, seller_id, item_urn, condition, language, price, quantity, valid)
       SELECT gen_random_uuid(), $1, 'pokemon/bulk/b/' || (n % 3000), 'NEAR_MINT', 'en', 100 + n, 1 + n % 3, true
         FROM generate_series(1, 6000) n`,
      [seller.id],
    );
    const bulk = (rows: Market[]) => rows.filter((r) => r.item_urn.startsWith('pokemon/bulk/'));
    expect(bulk(await stored(db))).toHaveLength(3000);
    expect(bulk(await stored(db))).toEqual(bulk(await recomputed(db)));
  });
});

class HoldRefused extends Error {}
