import type { PriceGuideRollup, RollupResult } from '../src/services/price-guide/rollup';

export interface PriceGuideActivityDeps {
  priceGuideRollup: PriceGuideRollup;
}

export interface PriceGuideActivities {
  /** Rolls completed sales up per item, condition and UTC day through the last day closed as of `nowIso` (ISO 8601). */
  rollUpSales(nowIso: string): Promise<RollupResult>;
}

export function createPriceGuideActivities({ priceGuideRollup }: PriceGuideActivityDeps): PriceGuideActivities {
  return {
    rollUpSales: (nowIso) => priceGuideRollup.run(new Date(nowIso)),
  };
}
