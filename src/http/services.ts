import type { DataSource } from 'typeorm';
import type { Baskets } from '../services/basket/baskets';
import type { Checkouts } from '../services/checkout/checkouts';
import type { Invoices } from '../services/orders/invoices';
import type { OrderUpdates } from '../services/orders/order-updates';
import type { Purchases } from '../services/orders/purchases';
import type { SellerOrders } from '../services/orders/seller-orders';
import type { AuthService } from '../services/auth/auth-service';
import type { Authenticator } from '../services/auth/authenticator';
import type { CatalogHierarchy } from '../services/catalog/hierarchy';
import type { EmailChange } from '../services/email-change';
import type { PersonalAccessTokens } from '../services/personal-access-tokens';
import type { Profiles } from '../services/profiles/profiles';
import type { Sellers } from '../services/sellers';
import type { WebhookEndpoints } from '../services/webhooks/endpoints';
import type { WebhookInspection } from '../services/webhooks/inspection';
import type { SellerListings } from '../services/listings/seller-listings';
import type { SellerDashboard } from '../services/sellers/dashboard';
import type { DeliveryOptions } from '../services/sellers/delivery-options';
import type { SellerStatsService } from '../services/sellers/seller-stats';
import type { Uploads } from '../services/uploads';
import type { ListingImports } from '../services/imports/listing-imports';
import type { Reviews } from '../services/reviews/reviews';
import type { ReviewWindows } from '../services/reviews/review-windows';
import type { Cases } from '../services/cases/cases';

/** What route handlers may use; built once in `src/composition.ts`. */
export interface Services {
  db: DataSource;
  auth: AuthService;
  authenticator: Authenticator;
  pats: PersonalAccessTokens;
  sellers: Sellers;
  emailChange: EmailChange;
  webhooks: WebhookEndpoints;
  webhookInspection: WebhookInspection;
  listings: SellerListings;
  sellerStats: SellerStatsService;
  sellerDashboard: SellerDashboard;
  deliveryOptions: DeliveryOptions;
  uploads: Uploads;
  imports: ListingImports;
  catalogTree: CatalogHierarchy;
  profiles: Profiles;
  baskets: Baskets;
  checkouts: Checkouts;
  orderUpdates: OrderUpdates;
  sellerOrders: SellerOrders;
  purchases: Purchases;
  invoices: Invoices;
  reviews: Reviews;
  reviewWindows: ReviewWindows;
  cases: Cases;
  /** Resolves when Temporal answers; rejects otherwise (for /readyz). */
  temporalHealth: () => Promise<void>;
}
