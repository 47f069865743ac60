import type { DataSource } from 'typeorm';
import { newId } from '../../src/ids';
import { recordSales, type CompletedSale } from '../../src/services/catalog/sales-ledger';
import { CONDITIONS } from '../../src/services/listings/listing-input';
import { LIVE_LISTING_SQL } from '../../src/services/listings/visibility';
import { CONDITION_GROUPS, GROUPS_VALUES_SQL } from '../../src/services/price-guide/condition-groups';
import { divideRounded, loadPriceGuides, TREND_PRIOR_UNITS, trendPrice, type PriceGuide } from '../../src/services/price-guide/price-guide';
import { PriceGuideRollup } from '../../src/services/price-guide/rollup';
import { registerSeller, startTestApi, type TestApi } from '../support/api';
import { seedCatalog } from '../support/fixtures';
import { listingInput } from '../support/listings';
import { prng } from '../support/random';
import { completedSale } from '../support/sales';

/**
 * The price guide (docs/price-guide.md) on a seeded sales history: every figure, before and after
 * the daily rollup and with the rollup lagging, equals a recount made straight from `item_sales`
 * and `listings` with the documented formulas.
 */
let api: TestApi;
let db: DataSource;
beforeAll(async () => {
  api = await startTestApi();
  db = api.database.db;
});
afterAll(() => api.close());

const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;

/**
 * Every figure recounted from the raw ledger: windows of N UTC days before today plus today so
 * far, unit-weighted averages and the trend as one fraction, both rounded half up by numeric
 * `round`; the lowest price is the cheapest live listing of the group.
 */
async function recount(urns: string[]): Promise<PriceGuide[]> {
  const rows: Array<{
    urn: string;
    grp: string;
    lowest: number | null;
    n1: number;
    avg1: number | null;
    n7: number;
    avg7: number | null;
    n30: number;
    avg30: number | null;
    trend: number | null;
  }> = await db.query(
    `WITH g (grp, conditions, position) AS (VALUES ${GROUPS_VALUES_SQL}),
          t AS (SELECT (now() AT TIME ZONE 'UTC')::date AS today),
          s AS (SELECT s.item_urn, g.grp, s.unit_price::numeric * s.quantity AS amount, s.quantity,
                       (s.sold_at AT TIME ZONE 'UTC')::date AS day
                  FROM item_sales s JOIN g ON s.condition = ANY(g.conditions)),
          w AS (SELECT s.item_urn, s.grp,
                       coalesce(sum(quantity) FILTER (WHERE day >= today - 1), 0) AS n1,
                       coalesce(sum(amount) FILTER (WHERE day >= today - 1), 0) AS a1,
                       coalesce(sum(quantity) FILTER (WHERE day >= today - 7), 0) AS n7,
                       coalesce(sum(amount) FILTER (WHERE day >= today - 7), 0) AS a7,
                       coalesce(sum(quantity) FILTER (WHERE day >= today - 30), 0) AS n30,
                       coalesce(sum(amount) FILTER (WHERE day >= today - 30), 0) AS a30
                  FROM s, t GROUP BY s.item_urn, s.grp)
     SELECT u.urn, g.grp,
            (SELECT min(l.price) FROM listings l JOIN seller_accounts sa ON sa.user_id = l.seller_id
              WHERE ${LIVE_LISTING_SQL} AND l.item_urn = u.urn AND l.condition = ANY(g.conditions)) AS lowest,
            coalesce(w.n1, 0)::int AS n1, round(w.a1 / nullif(w.n1, 0))::int AS avg1,
            coalesce(w.n7, 0)::int AS n7, round(w.a7 / nullif(w.n7, 0))::int AS avg7,
            coalesce(w.n30, 0)::int AS n30, round(w.a30 / nullif(w.n30, 0))::int AS avg30,
            round((w.a7 * w.n30 + ${TREND_PRIOR_UNITS} * w.a30) / nullif((w.n7 + ${TREND_PRIOR_UNITS}) * w.n30, 0))::int AS trend
       FROM unnest($1::text[]) u (urn) CROSS JOIN g
       LEFT JOIN w ON w.item_urn = u.urn AND w.grp = g.grp
      ORDER BY u.urn, g.position`,
    [urns],
  );
  const guides = new Map<string, PriceGuide>();
  for (const r of rows) {
    const guide = guides.get(r.urn) ?? { urn: r.urn, groups: [] };
    guides.set(r.urn, guide);
    guide.groups.push({
      group: r.grp as PriceGuide['groups'][number]['group'],
      conditions: [...CONDITION_GROUPS.find((g) => g.group === r.grp)!.conditions],
      lowestPrice: r.lowest,
      trendPrice: r.trend,
      last1Day: { averagePrice: r.avg1, sold: r.n1 },
      last7Days: { averagePrice: r.avg7, sold: r.n7 },
      last30Days: { averagePrice: r.avg30, sold: r.n30 },
    });
  }
  return [...guides.values()];
}

const guides = async (urns: string[]) => {
  const found = await loadPriceGuides(db, urns);
  return [...urns].sort().map((urn) => found.get(urn)!);
};

/** `item_sale_days` as it should be for the days given, recounted from `item_sales`. */
const dayRollup = (from: string, through: string) =>
  db.query(
    `SELECT item_urn, condition, to_char((sold_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day,
            sum(quantity)::int AS units, sum(unit_price::bigint * quantity)::text AS amount
       FROM item_sales
      WHERE condition IS NOT NULL AND (sold_at AT TIME ZONE 'UTC')::date BETWEEN $1::date AND $2::date
      GROUP BY 1, 2, 3 ORDER BY 1, 3, 2`,
    [from, through],
  );
const storedRollup = () =>
  db.query(
    `SELECT item_urn, condition, to_char(day, 'YYYY-MM-DD') AS day, units, amount::text AS amount
       FROM item_sale_days ORDER BY 1, 3, 2`,
  );

describe('price guide', () => {
  let urns: string[];

  beforeAll(async () => {
    const { items } = await seedCatalog(db, { names: ['Alakazam', 'Blastoise', 'Charizard', 'Dragonite'] });
    urns = items.map((i) => i.urn).sort();
    const next = prng(45);
    const int = (n: number) => Math.floor(next() * n);
    const sales: CompletedSale[] = [];
    // The first three items: 0 to 40 days back, every condition, a few sales a day; the fourth sells nothing.
    for (const urn of urns.slice(0, 3)) {
      for (let n = 0; n < 160; n++) {
        const daysAgo = int(41);
        // Today's sales are earlier than now; other days' anywhere in the day.
        const at = daysAgo === 0 ? today + int(Math.max(1, Date.now() - today)) : today - daysAgo * DAY + int(DAY);
        sales.push(completedSale(urn, CONDITIONS[int(CONDITIONS.length)]!, 50 + int(5000), 1 + int(4), at));
      }
    }
    // The windows' edges to the millisecond: day -1, -7 and -30 start inside, the ends of -2, -8 and -31 outside.
    for (const edge of [1, 7, 30]) {
      sales.push(completedSale(urns[0]!, 'MINT', 7777, 1, today - edge * DAY));
      sales.push(completedSale(urns[0]!, 'MINT', 1, 3, today - edge * DAY - 1));
    }
    await db.transaction((tx) => recordSales(tx, sales));
    // A sale recorded before conditions were kept, whose order and listing are gone: in no group.
    await db.query(
      `INSERT INTO item_sales (id, item_urn, listing_id, unit_price, quantity, sold_at) VALUES ($1, $2, $3, 999999, 5, now() - interval '1 hour')`,
      [newId(), urns[0], newId()],
    );

    // Live listings of some groups; a cheaper hidden one, and one out of stock, never count.
    const seller = await registerSeller(api);
    const list = (urn: string, condition: string, price: number, extra: { hidden?: boolean; quantity?: number } = {}) =>
      api.services.listings.create(
        seller.id,
        listingInput({ urn, price, quantity: extra.quantity ?? 2, condition, hidden: extra.hidden ?? false }),
      );
    await list(urns[0]!, 'NEAR_MINT', 2500);
    await list(urns[0]!, 'MINT', 2400);
    await list(urns[0]!, 'MINT', 100, { hidden: true });
    await list(urns[0]!, 'POOR', 300);
    await list(urns[0]!, 'POOR', 50, { quantity: 0 });
    await list(urns[1]!, 'GOOD', 1500);
    await list(urns[3]!, 'LIGHT_PLAYED', 200);
  });

  it('equals the recount from item_sales before anything is rolled up', async () => {
    const expected = await recount(urns);
    expect(expected[0]!.groups[0]!.lowestPrice).toBe(2400);
    expect(expected[0]!.groups[2]!.lowestPrice).toBe(300);
    expect(expected[3]!.groups.map((g) => g.last30Days.sold)).toEqual([0, 0, 0]);
    // The history gives every window of the first three items something to average.
    for (const guide of expected.slice(0, 3)) for (const g of guide.groups) expect(g.last7Days.sold).toBeGreaterThan(0);
    expect(await guides(urns)).toEqual(expected);
  });

  it('rolls closed days up into item_sale_days and still equals the recount', async () => {
    const result = await new PriceGuideRollup(db).run(new Date());
    expect(result.days.length).toBeGreaterThanOrEqual(31);
    expect(result.rolledThrough).toBe(result.days.at(-1));
    expect(await storedRollup()).toEqual(await dayRollup(result.days[0]!, result.rolledThrough!));
    const [mark] = await db.query(`SELECT to_char(rolled_through, 'YYYY-MM-DD') AS day FROM price_guide_rollup`);
    expect(mark.day).toBe(result.rolledThrough);
    expect(await guides(urns)).toEqual(await recount(urns));

    // Again: only the last day rolled is recomputed, to the same rows.
    const again = await new PriceGuideRollup(db).run(new Date());
    expect(again.days).toEqual([result.rolledThrough]);
    expect(await storedRollup()).toEqual(await dayRollup(result.days[0]!, result.rolledThrough!));
  });

  it('counts a sale from the commit that records it, and days the rollup has not reached from item_sales', async () => {
    await db.transaction((tx) =>
      recordSales(tx, [
        { itemUrn: urns[3]!, listingId: newId(), orderId: null, unitPrice: 420, quantity: 2, condition: 'PLAYED', soldAt: new Date() },
      ]),
    );
    const [, , , fourth] = await guides(urns);
    expect(fourth!.groups[2]).toMatchObject({
      lowestPrice: 200,
      trendPrice: 420,
      last1Day: { averagePrice: 420, sold: 2 },
      last30Days: { averagePrice: 420, sold: 2 },
    });
    // A rollup running late: its last four days are gone and its mark is behind them.
    await db.query(`DELETE FROM item_sale_days WHERE day > (SELECT rolled_through - 4 FROM price_guide_rollup)`);
    await db.query(`UPDATE price_guide_rollup SET rolled_through = rolled_through - 4`);
    expect(await guides(urns)).toEqual(await recount(urns));
    const caughtUp = await new PriceGuideRollup(db).run(new Date());
    expect(caughtUp.days).toHaveLength(5);
    expect(await guides(urns)).toEqual(await recount(urns));
  });

  it('rounds half up, and the trend leans on the 30-day average while the week has few sales', () => {
    expect(divideRounded(201n, 2n)).toBe(101);
    expect(divideRounded(1n, 3n)).toBe(0);
    expect(trendPrice({ units: 0, amount: 0n }, { units: 4, amount: 4000n })).toBe(1000);
    // 5 units at 2000 this week, 10 at 1000 over the month: halfway, (10000 + 5 · 1000) / 10.
    expect(trendPrice({ units: 5, amount: 10_000n }, { units: 10, amount: 10_000n })).toBe(1500);
    expect(trendPrice({ units: 0, amount: 0n }, { units: 0, amount: 0n })).toBeNull();
  });

  it('gives nothing for an URN not in the catalog', async () => {
    expect((await loadPriceGuides(db, ['pokemon/base/nowhere/1'])).size).toBe(0);
  });
});
