import { createOfferActivities } from '../../activities/offers';
import { offerRoutes } from '../http/routes/offers';
import { OfferEngine } from '../services/offers/offer-engine';
import { Offers } from '../services/offers/offers';
import { OfferUpdates } from '../temporal/offer-updates';
import type { FeatureModule } from './feature-module';

/** What the offers feature's routes use. */
export interface OffersServices {
  offers: Offers;
}

const periods = (config: { offers: { expirySeconds: number; paySeconds: number } }) => ({
  expirySeconds: config.offers.expirySeconds,
  paySeconds: config.offers.paySeconds,
});

/**
 * Offers on listings (docs/offers.md): the `/user/offers…` and `/seller/offers…` routes, and the
 * `offer:{id}` workflow (workflows/offer.ts, started through `starts.offer`) whose activities
 * write each move, deadline and listing change to Postgres. Moves reach the workflow as Updates
 * (src/temporal/offer-updates.ts); an accepted offer is paid through a checkout of its own.
 */
export const offersModule: FeatureModule<OffersServices> = {
  name: 'offers',
  tags: {
    Offers: "A buyer's offers on listings: make one, counter, accept, withdraw, and pay an accepted one. See docs/offers.md.",
    'Seller offers': 'Offers on the seller’s listings: accept, decline or counter, by deadline. See docs/offers.md.',
  },
  api: {
    services: ({ config, db, temporal, shared }) => ({
      offers: new Offers(
        db,
        new OfferEngine(db, periods(config)),
        new OfferUpdates(temporal, config.temporal.taskQueue),
        (sellerId, country) => shared.deliveryOptions.availableTo(sellerId, country),
        {
          expirySeconds: config.offers.expirySeconds,
          maxPerWindow: config.offers.maxPerWindow,
          windowSeconds: config.offers.windowSeconds,
          publicBaseUrl: config.publicBaseUrl,
        },
      ),
    }),
    routes: (services) => offerRoutes(services),
  },
  worker: {
    activities: ({ config, db }) => ({ ...createOfferActivities({ engine: new OfferEngine(db, periods(config)) }) }),
  },
};
