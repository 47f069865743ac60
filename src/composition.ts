import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Config } from './config';
import type { Services } from './http/services';
import { AccessTokens } from './services/auth/access-tokens';
import { OAuthTokens } from './services/auth/oauth-tokens';
import { AuthService } from './services/auth/auth-service';
import { Authenticator } from './services/auth/authenticator';
import { OAuthApps } from './services/auth/oauth-apps';
import { SignInThrottle } from './services/auth/sign-in-throttle';
import { CatalogHierarchy } from './services/catalog/hierarchy';
import { EmailChange } from './services/email-change';
import { PersonalAccessTokens } from './services/personal-access-tokens';
import { Profiles } from './services/profiles/profiles';
import { Sellers } from './services/sellers';
import { webhookDeliveryStarter } from './services/webhooks/delivery-starter';
import { WebhookEndpoints } from './services/webhooks/endpoints';
import { WebhookInspection } from './services/webhooks/inspection';
import { SellerListings } from './services/listings/seller-listings';
import { SellerDashboard } from './services/sellers/dashboard';
import { DeliveryOptions } from './services/sellers/delivery-options';
import { SellerStatsService } from './services/sellers/seller-stats';
import { Uploads } from './services/uploads';
import { ListingImports } from './services/imports/listing-imports';
import { LocalDiskImageStorage } from './integrations/images/storage';
import { Baskets } from './services/basket/baskets';
import { Checkouts } from './services/checkout/checkouts';
import { Invoices } from './services/orders/invoices';
import { OrderUpdates } from './services/orders/order-updates';
import { Purchases } from './services/orders/purchases';
import { SellerOrders } from './services/orders/seller-orders';
import { WorkflowStarters } from './temporal/starters';
import { createLogger } from './logger';
import { Reviews } from './services/reviews/reviews';
import { ReviewWindows } from './services/reviews/review-windows';
import { Cases } from './services/cases/cases';
import { CaseUpdates } from './temporal/case-updates';
import { BulkLookup } from './services/search/bulk-lookup';
import { ListingSearch } from './services/search/listing-search';

/** The composition root: wires services from configuration, the database and Temporal. */
export function createServices(config: Config, db: DataSource, temporal: Client): Services {
  const accessTokens = new AccessTokens(config.auth.jwtSecret, config.auth.accessTokenTtlSeconds, config.publicBaseUrl);
  const oauthApps = new OAuthApps(db);
  const signInThrottle = new SignInThrottle(db, { maxFailures: config.auth.signInMaxFailures, lockSeconds: config.auth.signInLockSeconds });
  const starters = new WorkflowStarters(temporal, config.temporal.taskQueue);
  const uploads = new Uploads(db, {
    storage: new LocalDiskImageStorage(config.uploads.dir),
    maxBytes: config.uploads.maxBytes,
    publicBaseUrl: config.publicBaseUrl,
  });
  const deliveryOptions = new DeliveryOptions(db);
  const baskets = new Baskets(db, (sellerId, country) => deliveryOptions.availableTo(sellerId, country));
  const log = createLogger(config.logLevel, 'api');
  const reviewWindows = new ReviewWindows(db, {
    start: (purchaseId, completedAt) => starters.reviewWindow(purchaseId, completedAt, config.reviews.windowSeconds),
    onStartFailed: (purchaseId, err) => log.warn({ purchaseId, err }, 'review window not started; reconciliation will retry'),
  });
  const orderUpdates = new OrderUpdates(db, {
    startCase: (opened) => starters.startCase(opened, config.cases.autoEscalateSeconds),
    startReceiptTimer: (orderId) => starters.orderReceipt(orderId, config.orders.autoReceiptSeconds),
    purchaseCompleted: (purchaseId) => reviewWindows.open(purchaseId),
  });
  return {
    db,
    auth: new AuthService(db, accessTokens, oauthApps, signInThrottle, {
      refreshTokenTtlSeconds: config.auth.refreshTokenTtlSeconds,
      scryptLogN: config.auth.scryptLogN,
    }),
    authenticator: new Authenticator(db, accessTokens, oauthApps),
    oauthApps,
    oauthTokens: new OAuthTokens(db, accessTokens, oauthApps),
    pats: new PersonalAccessTokens(db),
    sellers: new Sellers(db),
    emailChange: new EmailChange(db, {
      codeTtlSeconds: config.emailChange.codeTtlSeconds,
      maxAttempts: config.emailChange.maxAttempts,
      codeKey: config.auth.jwtSecret,
      startDelivery: (requestId) => starters.emailChange(requestId),
    }),
    webhooks: new WebhookEndpoints(db, {
      secretKey: config.webhooks.secretKey,
      allowPrivateUrls: config.webhooks.allowPrivateUrls,
      startDelivery: webhookDeliveryStarter(starters, config.webhooks),
    }),
    webhookInspection: new WebhookInspection(db),
    listings: new SellerListings(db, (imageId) => uploads.imageUrl(imageId), { searchCacheTtlMs: config.search.cacheTtlMs }),
    sellerStats: new SellerStatsService(db),
    sellerDashboard: new SellerDashboard(config.publicBaseUrl),
    deliveryOptions,
    uploads,
    imports: new ListingImports(db, (importId) => starters.listingImport(importId)),
    catalogTree: new CatalogHierarchy(db),
    bulkLookup: new BulkLookup(db, config.discover.cacheTtlMs),
    listingSearch: new ListingSearch(db, config.discover.cacheTtlMs),
    profiles: new Profiles(db),
    baskets,
    checkouts: new Checkouts(
      db,
      baskets,
      { start: (sessionId, holdSeconds) => starters.checkout(sessionId, holdSeconds), settled: (sessionId) => starters.checkoutSettled(sessionId) },
      { holdSeconds: config.checkout.holdSeconds, publicBaseUrl: config.publicBaseUrl },
    ),
    orderUpdates,
    sellerOrders: new SellerOrders(db),
    purchases: new Purchases(db, orderUpdates),
    invoices: new Invoices(db),
    reviews: new Reviews(db),
    reviewWindows,
    cases: new Cases(db, uploads, new CaseUpdates(temporal)),
    temporalHealth: async () => {
      // A short deadline: a readiness probe must answer quickly even when Temporal is unreachable.
      await temporal.connection.withDeadline(Date.now() + 2000, () => temporal.workflowService.getSystemInfo({}));
    },
  };
}
