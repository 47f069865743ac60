import { createOfferActivities } from '../../activities/offers';
import { offerRoutes } from '../http/routes/offers';
import { offerChangedSignal } from '../../workflows/contracts/offer';
import { newId } from '../ids';
import { OfferEngine } from '../services/offers/offer-engine';
import type { OfferChangeStarts } from '../services/offers/offer-rows';
import { Offers, type OfferStart } from '../services/offers/offers';
import { OfferUpdates } from '../temporal/offer-updates';
import { emailDeliveryStart } from './email';
import type { FeatureModule } from './feature-module';
import { start } from './workflow-start';

/** What the offers feature's routes use. */
export interface OffersServices {
  offers: Offers;
}

const periods = (config: { offers: { expirySeconds: number; paySeconds: number } }) => ({
  expirySeconds: config.offers.expirySeconds,
  paySeconds: config.offers.paySeconds,
});

/** The ids of this feature's workflows: an operator finds one from the object's id. */
export const offersWorkflowIds = {
  offer: (offerId: string) => `offer:${offerId}`,
};

/** `offer:{offerId}` as the offer's creation starts it (docs/offers.md). */
export const offerStart: OfferStart = (offerId, listingId) =>
  start('offerWorkflow', offersWorkflowIds.offer(offerId), { offerId }, { summary: `Offer ${offerId} on listing ${listingId}` });

/**
 * What an offer's change requests, wherever it happens: the offer engine's moves, a listing's
 * write (the shared seller listings, src/composition.ts) and a checkout's payment.
 */
export const offerChangeStarts: OfferChangeStarts = {
  /**
   * `offerChanged` signalled to `offer:{offerId}` (a signal-with-start, ordered after the offer's
   * own start in the outbox), so the workflow reads the offer again. An offer whose workflow has
   * ended is not started again (REJECT_DUPLICATE). Each change is its own request.
   */
  offerChanged: (offerId) =>
    start(
      'offerWorkflow',
      offersWorkflowIds.offer(offerId),
      { offerId },
      { signal: { name: offerChangedSignal.name, args: [] } },
      `changed:${newId()}`,
    ),
  emailDelivery: emailDeliveryStart,
};

/**
 * Offers on listings (docs/offers.md): the `/user/offers…` and `/seller/offers…` routes, and the
 * `offer:{id}` workflow (workflows/offer.ts, started through `offerStart`) whose activities
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
        new OfferEngine(db, periods(config), offerChangeStarts),
        new OfferUpdates(temporal, config.temporal.taskQueue),
        offerStart,
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
    activities: ({ config, db }) => ({ ...createOfferActivities({ engine: new OfferEngine(db, periods(config), offerChangeStarts) }) }),
  },
};
