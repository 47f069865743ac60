import type { Accounts } from '../services/account/account';
import type { AccountStatsService } from '../services/account/account-stats';
import type { SavedAddresses } from '../services/account/addresses';
import type { BillingPortal } from '../services/account/billing-portal';
import type { Baskets } from '../services/basket/baskets';
import type { Checkouts } from '../services/checkout/checkouts';
import type { Invoices } from '../services/orders/invoices';
import type { OrderUpdates } from '../services/orders/order-updates';
import type { Purchases } from '../services/orders/purchases';
import type { ShipmentTracking } from '../services/orders/shipment-tracking';
import type { ShipmentAttachments } from '../services/orders/shipment-attachments';
import type { SellerOrders } from '../services/orders/seller-orders';
import type { SellerMoney } from '../services/money/seller-money';
import type { SellerMoneyPages } from '../services/money/money-pages';
import type { AuthService } from '../services/auth/auth-service';
import type { Authenticator } from '../services/auth/authenticator';
import type { OAuthApps } from '../services/auth/oauth-apps';
import type { OAuthTokens } from '../services/auth/oauth-tokens';
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
import type { Cases } from '../services/cases/cases';
import type { OperatorRoles } from '../services/operators/operator-roles';
import type { Operators } from '../services/operators/operators';
import type { IdempotencyKeys } from '../services/idempotency/idempotency-keys';
import type { MessageAttachments } from '../services/conversations/attachments';
import type { Conversations } from '../services/conversations/conversations';
import type { BulkLookup } from '../services/search/bulk-lookup';
import type { ListingSearch } from '../services/search/listing-search';
import type { CatalogSearch } from '../services/search/catalog-search';
import type { PricePoint } from '../services/catalog/price-history';
import type { EmailOutbox } from '../services/email/outbox';
import type { ReadRouter } from '../db/read-router';

/** Each feature module's services, by module name. */
export type ModuleServices = Readonly<Record<string, object>>;

/** What route handlers may use; built once in `src/composition.ts`. Handlers never see the database. */
export interface Services {
  auth: AuthService;
  authenticator: Authenticator;
  oauthApps: OAuthApps;
  oauthTokens: OAuthTokens;
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
  bulkLookup: BulkLookup;
  listingSearch: ListingSearch;
  profiles: Profiles;
  accounts: Accounts;
  accountStats: AccountStatsService;
  addresses: SavedAddresses;
  billingPortal: BillingPortal;
  baskets: Baskets;
  checkouts: Checkouts;
  orderUpdates: OrderUpdates;
  shipmentTracking: ShipmentTracking;
  shipmentAttachments: ShipmentAttachments;
  sellerOrders: SellerOrders;
  sellerMoney: SellerMoney;
  sellerMoneyPages: SellerMoneyPages;
  purchases: Purchases;
  invoices: Invoices;
  reviews: Reviews;
  cases: Cases;
  operators: Operators;
  operatorRoles: OperatorRoles;
  catalogSearch: CatalogSearch;
  /** Daily sale prices of an item; 404 for an unknown item. */
  priceHistory: (urn: string, days: number) => Promise<PricePoint[]>;
  /** The e-mail outbox, read by the development-only routes. */
  emailOutbox: EmailOutbox;
  /** Resolves when PostgreSQL answers; rejects otherwise (for /readyz). */
  databaseHealth: () => Promise<void>;
  idempotencyKeys: IdempotencyKeys;
  conversations: Conversations;
  messageAttachments: MessageAttachments;
  /** Resolves when Temporal answers; rejects otherwise (for /readyz). */
  temporalHealth: () => Promise<void>;
  /** What each feature module built for its routes, by module name (src/modules). */
  modules: ModuleServices;
  /** Which database each read goes to: the primary or a replica (docs/replicas.md); its state feeds /metrics. */
  readRouter: ReadRouter;
  /** Ends what the services keep open beside the pool (the Discover change listener, the replicas' pools); before the pool closes. */
  close: () => Promise<void>;
}
