import { notificationRoutes } from '../http/routes/notifications';
import { savedSearchRoutes } from '../http/routes/saved-searches';
import { Notifications } from '../services/alerts/notifications';
import { SavedSearches } from '../services/alerts/saved-searches';
import type { FeatureModule } from './feature-module';

/** What the alerts feature's routes use. */
export interface AlertsServices {
  savedSearches: SavedSearches;
  notifications: Notifications;
}

/**
 * Saved searches, price alerts, the watchlist and notifications (docs/alerts.md): the
 * `/user/saved-searches…` and `/user/notifications…` routes, and `GET /listings/{id}` that
 * notifications link to.
 */
export const alertsModule: FeatureModule<AlertsServices> = {
  name: 'alerts',
  api: {
    services: ({ db, shared }) => ({
      savedSearches: new SavedSearches(db, { catalog: shared.catalogSearch, listings: shared.listingSearch }),
      notifications: new Notifications(db),
    }),
    routes: (services) => [...savedSearchRoutes(services), ...notificationRoutes(services)],
  },
};
