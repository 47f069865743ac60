import { sellerRoutes } from '../http/routes/seller';
import { sellerAccountRoutes } from '../http/routes/seller-account';
import type { Sellers } from '../services/sellers';
import { SellerDashboard } from '../services/sellers/dashboard';
import type { DeliveryOptions } from '../services/sellers/delivery-options';
import { SellerStatsService } from '../services/sellers/seller-stats';
import type { FeatureModule } from './feature-module';

/** What the seller account routes use. */
export interface SellersServices {
  sellers: Sellers;
  sellerStats: SellerStatsService;
  sellerDashboard: SellerDashboard;
  deliveryOptions: DeliveryOptions;
}

/**
 * Being a seller (docs/sellers-operators.md): onboarding and status, vacation, statistics, the
 * dashboard's signed links and delivery options. Seller standing and delivery options are shared
 * services: the router checks the one on every seller route, baskets and offers price the other.
 */
export const sellersModule: FeatureModule<SellersServices> = {
  name: 'sellers',
  tags: {
    Seller: 'Seller onboarding, status, dashboard links and statistics.',
    'Delivery options': 'Delivery options a seller offers, by destination country.',
  },
  api: {
    services: ({ config, db, shared }) => ({
      sellers: shared.sellers,
      sellerStats: new SellerStatsService(db),
      sellerDashboard: new SellerDashboard(shared.signedLinks, config.publicBaseUrl),
      deliveryOptions: shared.deliveryOptions,
    }),
    routes: (services) => [...sellerRoutes(services), ...sellerAccountRoutes(services)],
  },
};
