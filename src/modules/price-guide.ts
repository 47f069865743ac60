import { createPriceGuideActivities } from '../../activities/price-guide';
import { priceGuideRoutes } from '../http/routes/price-guide';
import { PriceGuides } from '../services/price-guide/price-guide';
import { PriceGuideRollup } from '../services/price-guide/rollup';
import { ensurePriceGuideRollupSchedule } from '../temporal/price-guide-schedule';
import type { FeatureModule } from './feature-module';

/** What the price guide's routes use. */
export interface PriceGuideServices {
  guides: PriceGuides;
}

/**
 * The price guide (docs/price-guide.md): `GET /search/price-guide`, the `rollUpSales` activity
 * and the `price-guide-rollup` Schedule that starts `priceGuideRollupWorkflow`
 * (workflows/price-guide-rollup.ts). The figures on listing search hits are read by Discover's
 * listing search through the same service (`loadPriceGuides`), kept in Discover's caches.
 */
export const priceGuideModule: FeatureModule<PriceGuideServices> = {
  name: 'price-guide',
  api: {
    // The guide is rolled up hourly: a replica's bounded lag changes nothing a reader could notice.
    services: ({ reads }) => ({ guides: new PriceGuides(reads.lagging) }),
    routes: (services) => priceGuideRoutes(services),
  },
  worker: {
    activities: ({ db }) => ({ ...createPriceGuideActivities({ priceGuideRollup: new PriceGuideRollup(db) }) }),
    schedules: ({ config, temporal }) =>
      ensurePriceGuideRollupSchedule(temporal, { taskQueue: config.temporal.taskQueue, everyMs: config.priceGuide.rollupEveryMs }),
  },
};
