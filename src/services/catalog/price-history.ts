import type { DataSource } from 'typeorm';
import { notFound } from '../errors';

/** One UTC day of completed sales of an item; prices in pence. */
export interface PricePoint {
  date: string;
  min: number;
  median: number;
  max: number;
  /** Units sold that day. */
  count: number;
}

/**
 * Daily points over the ledger. Every unit sold is one observation, so a sale of 3 at 100p
 * weighs three times a sale of 1 at 500p. The median is the lower weighted median: the lowest
 * unit price at which at least half of the day's units had sold. It is always a price that was
 * actually paid (whole pence), never an average of two.
 */
const HISTORY_SQL = `
  WITH sales AS (
    SELECT (sold_at AT TIME ZONE 'UTC')::date AS day, unit_price, quantity
      FROM item_sales
     WHERE item_urn = $1 AND sold_at >= now() - make_interval(days => $2::int)),
  ranked AS (
    SELECT day, unit_price,
           sum(quantity) OVER (PARTITION BY day ORDER BY unit_price ROWS UNBOUNDED PRECEDING) AS units_so_far,
           sum(quantity) OVER (PARTITION BY day) AS units
      FROM sales)
  SELECT to_char(day, 'YYYY-MM-DD') AS date, min(unit_price) AS min, max(unit_price) AS max,
         max(units)::int AS count, min(unit_price) FILTER (WHERE units_so_far * 2 >= units) AS median
    FROM ranked
   GROUP BY day
   ORDER BY day`;

export async function priceHistory(db: DataSource, urn: string, days: number): Promise<PricePoint[]> {
  const [known] = await db.query(`SELECT 1 FROM catalog_items WHERE urn = $1`, [urn]);
  if (!known) throw notFound('Item');
  return db.query(HISTORY_SQL, [urn, days]);
}
