import { notificationRoutes } from '../http/routes/notifications';
import { priceAlertRoutes } from '../http/routes/price-alerts';
import { createAlertActivities } from '../../activities/alerts';
import { savedSearchRoutes } from '../http/routes/saved-searches';
import { alertsNotifiedSignal } from '../../workflows/contracts/alert-digest';
import { requestAlertDigests, type AlertDigestStart } from '../services/alerts/digest';
import { AlertMatcher } from '../services/alerts/matcher';
import { Notifications } from '../services/alerts/notifications';
import { PriceAlerts } from '../services/alerts/price-alerts';
import { Watchlist } from '../services/alerts/watchlist';
import { SavedSearches } from '../services/alerts/saved-searches';
import type { FeatureModule } from './feature-module';
import { start } from './workflow-start';

/** What the alerts feature's routes use. */
export interface AlertsServices {
  savedSearches: SavedSearches;
  notifications: Notifications;
  priceAlerts: PriceAlerts;
  watchlist: Watchlist;
}

/** The ids of this feature's workflows: an operator finds one from the object's id. */
export const alertsWorkflowIds = {
  digest: (userId: string) => `alert-digest:${userId}`,
};

/**
 * New notifications for `userId`, as a signal-with-start of `alert-digest:{userId}`: a running
 * digest takes them into its next round, and after one ended a new run starts (ALLOW_DUPLICATE).
 * `notificationId` (the first of the batch) tells the requests apart.
 */
export const alertDigestStart: AlertDigestStart = (userId, intervalMs, notificationId) =>
  start(
    'alertDigestWorkflow',
    alertsWorkflowIds.digest(userId),
    { userId, intervalMs },
    { reusePolicy: 'ALLOW_DUPLICATE', signal: { name: alertsNotifiedSignal.name, args: [] }, summary: `Alert e-mails of user ${userId}` },
    `notified:${notificationId}`,
  );

/**
 * Saved searches, price alerts, the watchlist and notifications (docs/alerts.md): the
 * `/user/saved-searches…`, `/user/price-alerts…`, `/user/watchlist…` and `/user/notifications…`
 * routes, and `GET /listings/{id}` that notifications link to; in the worker, the matcher that
 * turns listing events into notifications (a feeder of the start dispatcher), and the
 * `alert-digest:{userId}` workflow's activity that e-mails them.
 */
export const alertsModule: FeatureModule<AlertsServices> = {
  name: 'alerts',
  tags: {
    'Saved searches': 'Catalog and listing searches saved under a name, run again by id. See docs/alerts.md.',
    Alerts:
      'Price alerts, the watchlist and the notifications they fire, with an e-mail digest at most every 15 minutes. See docs/alerts.md.',
  },
  api: {
    services: ({ db, shared }) => ({
      savedSearches: new SavedSearches(db, { catalog: shared.catalogSearch, listings: shared.listingSearch }),
      notifications: new Notifications(db),
      priceAlerts: new PriceAlerts(db),
      watchlist: new Watchlist(db),
    }),
    routes: (services) => [...savedSearchRoutes(services), ...priceAlertRoutes(services), ...notificationRoutes(services)],
  },
  worker: {
    // Matching runs beside the webhook fan-out, from the same events, never in the seller's request.
    activities: ({ db }) => ({ ...createAlertActivities({ db }) }),
    startFeeders: ({ config, db }) => {
      const matcher = new AlertMatcher(db, {
        batchSize: config.starts.batchSize,
        // In the matcher's transaction: the digest hears of the notifications iff they commit.
        onNotified: (tx, notified) => requestAlertDigests(tx, notified, config.alerts.digestIntervalMs, alertDigestStart),
      });
      return [async () => (await matcher.matchBatch()).events];
    },
  },
};
