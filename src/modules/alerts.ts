import { savedSearchRoutes } from '../http/routes/saved-searches';
import { SavedSearches } from '../services/alerts/saved-searches';
import type { FeatureModule } from './feature-module';

/** What the alerts feature's routes use. */
export interface AlertsServices {
  savedSearches: SavedSearches;
}

/**
 * Saved searches, price alerts, the watchlist and notifications (docs/alerts.md): the
 * `/user/saved-searches…` routes.
 */
export const alertsModule: FeatureModule<AlertsServices> = {
  name: 'alerts',
  api: {
    services: ({ db, shared }) => ({
      savedSearches: new SavedSearches(db, { catalog: shared.catalogSearch, listings: shared.listingSearch }),
    }),
    routes: (services) => [...savedSearchRoutes(services)],
  },
};
