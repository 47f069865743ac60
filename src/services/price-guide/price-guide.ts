import type { DataSource } from 'typeorm';
import { prepared, queryPrepared } from '../../db/prepared';
import { notFound } from '../errors';
import { LIVE_LISTING_SQL } from '../listings/visibility';
import { CONDITION_GROUPS, GROUPS_VALUES_SQL, type ConditionGroup } from './condition-groups';

/** Completed sales of one window: their unit-weighted average price (pence, null without sales) and units sold. */
export interface PriceWindow {
  averagePrice: number | null;
  sold: number;
}

/** The price guide of one item and condition group (docs/price-guide.md). Prices in pence. */
export interface PriceGuideEntry {
  group: ConditionGroup;
  conditions: string[];
  /** The cheapest live listing (LIVE_LISTING_SQL) of the group now; null when none is for sale. */
  lowestPrice: number | null;
  /** The 7-day average shrunk toward the 30-day one by how few sales it rests on; null without sales in 30 days. */
  trendPrice: number | null;
  last1Day: PriceWindow;
  last7Days: PriceWindow;
  last30Days: PriceWindow;
}

export interface PriceGuide {
  urn: string;
  /** One entry per condition group, best first (CONDITION_GROUPS). */
  groups: PriceGuideEntry[];
}

/** Windows in whole UTC days before today; each also holds today so far. */
export const WINDOWS = { last1Day: 1, last7Days: 7, last30Days: 30 } as const;

/**
 * The trend's credibility constant: the 7-day average counts as much as `TREND_PRIOR_UNITS` units
 * at the 30-day average would. With no sale in 7 days the trend is the 30-day average; with 5 it
 * lies halfway; with 45 it is 90 % the 7-day one.
 */
export const TREND_PRIOR_UNITS = 5;

/** Units and pence of one window, as summed by the guide's query. */
interface WindowSums {
  units: number;
  amount: bigint;
}

/** `a / b` rounded half up, for non-negative integers; exact whatever their size. */
export function divideRounded(a: bigint, b: bigint): number {
  return Number((2n * a + b) / (2n * b));
}

const average = ({ units, amount }: WindowSums): PriceWindow => ({
  averagePrice: units > 0 ? divideRounded(amount, BigInt(units)) : null,
  sold: units,
});

/**
 * trend = (A7 + k · A30 / n30) / (n7 + k), with A the pence and n the units of a window and
 * k = TREND_PRIOR_UNITS: the 7-day average shrunk toward the 30-day one. Computed as one exact
 * fraction, (A7 · n30 + k · A30) / ((n7 + k) · n30), rounded half up once.
 */
export function trendPrice(d7: WindowSums, d30: WindowSums): number | null {
  if (d30.units === 0) return null;
  const k = BigInt(TREND_PRIOR_UNITS);
  const n30 = BigInt(d30.units);
  return divideRounded(d7.amount * n30 + k * d30.amount, (BigInt(d7.units) + k) * n30);
}

interface GuideRow {
  urn: string;
  grp: ConditionGroup;
  lowest: number | null;
  units1: number;
  amount1: string;
  units7: number;
  amount7: string;
  units30: number;
  amount30: string;
}

/**
 * One round trip for any number of items: per catalog item and condition group, the cheapest live
 * listing (one probe of listings_item_live_price_idx in price order, stopping at the first live
 * row of the group) and the sums of the three windows. Closed days up to the rollup's mark come
 * from `item_sale_days`; later sales, today's among them, straight from `item_sales`
 * (item_sales_item_sold_idx): a sale counts from the commit that records it, and a late
 * rollup only means more of the second kind.
 */
const GUIDE_SQL = prepared(
  'price-guide',
  `WITH w AS (
     SELECT (now() AT TIME ZONE 'UTC')::date AS today,
            coalesce((SELECT rolled_through FROM price_guide_rollup), '-infinity'::date) AS through),
   groups (grp, conditions, position) AS (VALUES ${GROUPS_VALUES_SQL}),
   items AS (SELECT urn FROM catalog_items WHERE urn = ANY($1::text[])),
   sales AS (
     SELECT d.item_urn, d.condition, d.day, d.units::bigint AS units, d.amount
       FROM item_sale_days d, w
      WHERE d.item_urn IN (SELECT urn FROM items) AND d.day >= w.today - ${WINDOWS.last30Days} AND d.day <= w.through
     UNION ALL
     SELECT s.item_urn, s.condition, (s.sold_at AT TIME ZONE 'UTC')::date, s.quantity, s.unit_price::bigint * s.quantity
       FROM item_sales s, w
      WHERE s.item_urn IN (SELECT urn FROM items) AND s.condition IS NOT NULL
        AND s.sold_at >= greatest(w.through + 1, w.today - ${WINDOWS.last30Days})::timestamp AT TIME ZONE 'UTC'),
   sums AS (
     SELECT s.item_urn, g.grp,
            sum(s.units) FILTER (WHERE s.day >= w.today - ${WINDOWS.last1Day}) AS units1,
            sum(s.amount) FILTER (WHERE s.day >= w.today - ${WINDOWS.last1Day}) AS amount1,
            sum(s.units) FILTER (WHERE s.day >= w.today - ${WINDOWS.last7Days}) AS units7,
            sum(s.amount) FILTER (WHERE s.day >= w.today - ${WINDOWS.last7Days}) AS amount7,
            sum(s.units) AS units30, sum(s.amount) AS amount30
       FROM sales s JOIN groups g ON s.condition = ANY(g.conditions), w
      GROUP BY s.item_urn, g.grp)
   SELECT i.urn, g.grp, lowest.price AS lowest,
          coalesce(s.units1, 0)::int AS units1, coalesce(s.amount1, 0)::text AS amount1,
          coalesce(s.units7, 0)::int AS units7, coalesce(s.amount7, 0)::text AS amount7,
          coalesce(s.units30, 0)::int AS units30, coalesce(s.amount30, 0)::text AS amount30
     FROM items i CROSS JOIN groups g
     LEFT JOIN sums s ON s.item_urn = i.urn AND s.grp = g.grp
     LEFT JOIN LATERAL (
       SELECT l.price FROM listings l JOIN seller_accounts sa ON sa.user_id = l.seller_id
        WHERE l.item_urn = i.urn AND l.condition = ANY(g.conditions) AND ${LIVE_LISTING_SQL}
        ORDER BY l.price LIMIT 1) lowest ON true
    ORDER BY i.urn, g.position`,
);

/** The price guides of the catalog items among `urns`, by URN; an URN not in the catalog is absent. */
export async function loadPriceGuides(db: DataSource, urns: string[]): Promise<Map<string, PriceGuide>> {
  const guides = new Map<string, PriceGuide>();
  if (urns.length === 0) return guides;
  const rows = await queryPrepared<GuideRow>(db, GUIDE_SQL, [[...new Set(urns)]]);
  for (const row of rows) {
    const sums = (units: number, amount: string): WindowSums => ({ units, amount: BigInt(amount) });
    const [d1, d7, d30] = [sums(row.units1, row.amount1), sums(row.units7, row.amount7), sums(row.units30, row.amount30)];
    let guide = guides.get(row.urn);
    if (!guide) guides.set(row.urn, (guide = { urn: row.urn, groups: [] }));
    guide.groups.push({
      group: row.grp,
      conditions: [...CONDITION_GROUPS.find((g) => g.group === row.grp)!.conditions],
      lowestPrice: row.lowest,
      trendPrice: trendPrice(d7, d30),
      last1Day: average(d1),
      last7Days: average(d7),
      last30Days: average(d30),
    });
  }
  return guides;
}

/** `GET /search/price-guide`: one item's guide; an URN not in the catalog is a 404, like its price history. */
export class PriceGuides {
  constructor(private readonly db: DataSource) {}

  async guide(urn: string): Promise<PriceGuide> {
    const guide = (await loadPriceGuides(this.db, [urn])).get(urn);
    if (!guide) throw notFound('Item');
    return guide;
  }
}
