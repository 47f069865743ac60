import type { DataSource } from 'typeorm';
import { WINDOWS } from './price-guide';

/**
 * A day is rolled up once it has been over this long: a checkout commit stamps its sales when it
 * starts and may commit a moment after midnight. Until then the guide reads the day from
 * `item_sales`, so the margin delays nothing anyone sees.
 */
export const ROLLUP_MARGIN_MS = 15 * 60_000;

export interface RollupResult {
  /** The days (YYYY-MM-DD) recomputed, oldest first. */
  days: string[];
  /** The last day `item_sale_days` now holds; null while nothing has been rolled up. */
  rolledThrough: string | null;
}

const DAY_MS = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Keeps `item_sale_days` (docs/price-guide.md, "Daily rollups"): each run recomputes, one
 * transaction per day, every closed day from the last one rolled up (again: a sale committed late
 * into it is taken in) through the last day that ended ROLLUP_MARGIN_MS before `now`, and moves
 * the mark `price_guide_rollup.rolled_through` with each. A day is recomputed whole from
 * `item_sales`, so a run repeated or overlapping another changes nothing. Days older than the
 * guide's longest window are not rolled up on a first run or after a long outage: the guide never
 * reads them.
 */
export class PriceGuideRollup {
  constructor(private readonly db: DataSource) {}

  async run(now: Date): Promise<RollupResult> {
    const last = Math.floor((now.getTime() - ROLLUP_MARGIN_MS) / DAY_MS) * DAY_MS - DAY_MS;
    const [mark] = await this.db.query(`SELECT to_char(rolled_through, 'YYYY-MM-DD') AS day FROM price_guide_rollup`);
    const oldest = last - WINDOWS.last30Days * DAY_MS;
    const from = mark ? Math.max(Date.parse(`${mark.day as string}T00:00:00Z`), oldest) : oldest;
    const days: string[] = [];
    for (let day = from; day <= last; day += DAY_MS) {
      await this.rollDay(isoDay(day));
      days.push(isoDay(day));
    }
    return { days, rolledThrough: days.at(-1) ?? (mark ? (mark.day as string) : null) };
  }

  private async rollDay(day: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      // One rollup at a time: two overlapping runs would otherwise interleave their deletes and inserts.
      await tx.query(`SELECT pg_advisory_xact_lock(1733610000)`);
      await tx.query(`DELETE FROM item_sale_days WHERE day = $1::date`, [day]);
      await tx.query(
        `INSERT INTO item_sale_days (item_urn, condition, day, units, amount)
         SELECT item_urn, condition, $1::date, sum(quantity), sum(unit_price::bigint * quantity)
           FROM item_sales
          WHERE sold_at >= $1::date::timestamp AT TIME ZONE 'UTC'
            AND sold_at < ($1::date + 1)::timestamp AT TIME ZONE 'UTC'
            AND condition IS NOT NULL
          GROUP BY item_urn, condition`,
        [day],
      );
      // The mark only moves forward: a re-run of an older day leaves a later mark alone.
      await tx.query(
        `INSERT INTO price_guide_rollup (id, rolled_through, rolled_at) VALUES (true, $1::date, now())
         ON CONFLICT (id) DO UPDATE SET rolled_through = greatest(price_guide_rollup.rolled_through, excluded.rolled_through),
                                        rolled_at = excluded.rolled_at`,
        [day],
      );
    });
  }
}
