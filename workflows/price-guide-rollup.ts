import type { PriceGuideActivities } from '../activities/price-guide';
import type { RollupResult } from '../src/services/price-guide/rollup';
import { boundedActivities } from './bounded-activities';

const { rollUpSales } = boundedActivities<PriceGuideActivities>({
  // One transaction per day; a first run (31 days of every item's sales) takes longest.
  startToCloseTimeout: '30 minutes',
  // The Schedule runs again within the hour and skips a run while one is going; the guide reads
  // what is not rolled up from the sales themselves, so a missed run delays nothing visible.
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 3 },
});

/** Started by the price guide's rollup Schedule; no input. */
export type PriceGuideRollupInput = Record<string, never>;

/**
 * One pass of the price guide's daily rollup (docs/price-guide.md, "Daily rollups"), started by
 * the `price-guide-rollup` Schedule that the worker keeps for the `price-guide` feature module:
 * rolls the days closed as of the workflow's clock into `item_sale_days`.
 */
export async function priceGuideRollupWorkflow(_input: PriceGuideRollupInput = {}): Promise<RollupResult> {
  return rollUpSales(new Date().toISOString());
}
