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
import { deliveryPolicy } from './services/webhooks/fan-out';
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
import { Accounts } from './services/account/account';
import { AccountStatsService } from './services/account/account-stats';
import { SavedAddresses } from './services/account/addresses';
import { BillingPortal } from './services/account/billing-portal';
import { SignedLinks } from './services/auth/signed-links';
import { SellerMoneyPages } from './services/money/money-pages';
import { addressLookupProvider } from './integrations/address-lookup';
import { Checkouts } from './services/checkout/checkouts';
import { Invoices } from './services/orders/invoices';
import { OrderUpdates, type OrderTimings } from './services/orders/order-updates';
import { ShipmentTracking } from './services/orders/shipment-tracking';
import { ShipmentAttachments } from './services/orders/shipment-attachments';
import { createCarrier } from './integrations/carriers';
import { Purchases } from './services/orders/purchases';
import { SellerMoney } from './services/money/seller-money';
import { SellerOrders } from './services/orders/seller-orders';
import { Reviews } from './services/reviews/reviews';
import { Cases } from './services/cases/cases';
import { CaseUpdates } from './temporal/case-updates';
import { OperatorRoles } from './services/operators/operator-roles';
import { Operators } from './services/operators/operators';
import { IdempotencyKeys } from './services/idempotency/idempotency-keys';
import { MessageAttachments } from './services/conversations/attachments';
import { Conversations } from './services/conversations/conversations';
import { UserActivity } from './services/users/activity';
import { DEFAULT_DECODE_LIMITS } from './integrations/images/decode';
import { DEFAULT_MODERATION, EmbeddedImageModerator } from './integrations/images/moderation';
import { ImageProcessor } from './integrations/images/processor';
import { BulkLookup } from './services/search/bulk-lookup';
import { ListingSearch, loadPriceGuideEntries, priceGuideKeysOf } from './services/search/listing-search';
import { CatalogSearch } from './services/search/catalog-search';
import { DiscoverChangeListener, type ItemChanges } from './services/catalog/discover-changes';
import { JsonCache } from './services/search/json-cache';
import { loadItems } from './services/catalog/item-view';
import { loadUserSummaries } from './services/users/user-summary';
import { createLogger } from './logger';
import { priceHistory } from './services/catalog/price-history';
import { EmailOutbox } from './services/email/outbox';
import type { Periods } from './domain/deadlines';
import { createModuleServices } from './modules';
import { createReadRouter, type ReadRouter } from './db/read-router';

/** The composition root: wires services from configuration, the database and Temporal. */
/** The periods order actions start their timers with; the worker's activities use the same. */
export function orderTimings(config: Config): OrderTimings {
  return {
    autoEscalateSeconds: config.cases.autoEscalateSeconds,
    autoReceiptSeconds: config.orders.autoReceiptSeconds,
    reviewWindowSeconds: config.reviews.windowSeconds,
    fundsHoldSeconds: config.money.fundsHoldSeconds,
    tracking: trackingPolicy(config),
  };
}

const trackingPolicy = (config: Config) => ({
  pollSeconds: config.tracking.pollSeconds,
  pollMaxSeconds: config.tracking.pollMaxSeconds,
  giveUpSeconds: config.tracking.giveUpSeconds,
});

/** Shipment tracking over the configured carrier: the API corrects numbers, the worker polls. */
export function shipmentTracking(config: Config, db: DataSource): ShipmentTracking {
  const carrier = createCarrier({
    provider: config.tracking.carrierProvider,
    simulatorStepSeconds: config.tracking.simulatorStepSeconds,
    easypostApiKey: config.tracking.easypostApiKey,
    easypostUrl: config.tracking.easypostUrl,
  });
  return new ShipmentTracking(db, carrier, {
    autoReceiptSeconds: config.orders.autoReceiptSeconds,
    deliveredReceiptSeconds: config.orders.deliveredReceiptSeconds,
    tracking: trackingPolicy(config),
  });
}

export function createServices(config: Config, db: DataSource, temporal: Client): Services {
  const accessTokens = new AccessTokens(config.auth.jwtSecret, config.auth.accessTokenTtlSeconds, config.publicBaseUrl);
  const oauthApps = new OAuthApps(db);
  const signInThrottle = new SignInThrottle(db, { maxFailures: config.auth.signInMaxFailures, lockSeconds: config.auth.signInLockSeconds });
  const images = new ImageProcessor({
    limits: { ...DEFAULT_DECODE_LIMITS, maxBytes: config.uploads.maxBytes },
    concurrency: config.uploads.decodeConcurrency,
    maxQueued: config.uploads.decodeQueue,
  });
  const uploads = new Uploads(db, {
    storage: new LocalDiskImageStorage(config.uploads.dir),
    maxBytes: config.uploads.maxBytes,
    publicBaseUrl: config.publicBaseUrl,
    images,
    quota: { maxPending: config.uploads.maxPending, maxPendingBytes: config.uploads.maxPendingBytes, perMinute: config.uploads.perMinute },
  });
  const deliveryOptions = new DeliveryOptions(db);
  const baskets = new Baskets(db, (sellerId, country) => deliveryOptions.availableTo(sellerId, country));
  const caseUpdates = new CaseUpdates(temporal, config.temporal.taskQueue);
  const periods: Periods = {
    autoReceiptSeconds: config.orders.autoReceiptSeconds,
    deliveredReceiptSeconds: config.orders.deliveredReceiptSeconds,
    autoEscalateSeconds: config.cases.autoEscalateSeconds,
    reviewWindowSeconds: config.reviews.windowSeconds,
    dispatchSeconds: config.orders.dispatchSeconds,
    cancellationAnswerSeconds: config.orders.cancellationAnswerSeconds,
    decisionSeconds: config.cases.decisionSeconds,
  };
  const conversations = new Conversations(db, (imageId) => uploads.imageUrl(imageId), {
    graceSeconds: config.conversations.notifyGraceSeconds,
    maxDelaySeconds: config.conversations.notifyMaxDelaySeconds,
    inactiveSeconds: config.conversations.inactiveSeconds,
  });
  const orderUpdates = new OrderUpdates(db, orderTimings(config));
  // One signing rule for every hosted page opened by its link (billing portal, seller money pages).
  const signedLinks = new SignedLinks({ key: config.auth.jwtSecret, ttlSeconds: config.billingPortal.linkTtlSeconds });
  const sellerMoney = new SellerMoney(db, config.money);
  // The database's item change notifications, heard by one connection per API process, keep
  // Discover's caches and seller search indexes fresh. With both caches off nothing is kept, so nothing listens.
  const changes =
    config.discover.cacheTtlMs > 0 || config.search.cacheTtlMs > 0
      ? new DiscoverChangeListener(config.databaseUrl, createLogger(config.logLevel, 'discover-changes'))
      : undefined;
  // Public reads go to a replica when one is healthy (docs/replicas.md).
  const reads = createReadRouter(config, db, createLogger(config.logLevel, 'read-router'));
  // A cache refilled after a change reads from the primary until a replica has replayed the change.
  changes?.onChange(() => reads.changed());
  changes?.onReset(() => reads.changed());
  const discover = discoverServices(config, reads, changes);
  changes?.start();
  reads.start();
  const shared: Services = {
    auth: new AuthService(db, accessTokens, oauthApps, signInThrottle, {
      refreshTokenTtlSeconds: config.auth.refreshTokenTtlSeconds,
      scryptLogN: config.auth.scryptLogN,
    }),
    authenticator: new Authenticator(db, accessTokens, oauthApps, new UserActivity(db)),
    oauthApps,
    oauthTokens: new OAuthTokens(db, accessTokens, oauthApps),
    pats: new PersonalAccessTokens(db),
    sellers: new Sellers(db),
    emailChange: new EmailChange(db, {
      codeTtlSeconds: config.emailChange.codeTtlSeconds,
      maxAttempts: config.emailChange.maxAttempts,
      codeKey: config.auth.jwtSecret,
    }),
    webhooks: new WebhookEndpoints(db, {
      secretKey: config.webhooks.secretKey,
      allowPrivateUrls: config.webhooks.allowPrivateUrls,
      deliveryPolicy: deliveryPolicy(config.webhooks),
    }),
    webhookInspection: new WebhookInspection(db),
    listings: new SellerListings(db, (imageId) => uploads.imageUrl(imageId), {
      ttlMs: config.search.cacheTtlMs,
      keepIndexMs: keepWhileListening(config.search.cacheTtlMs, changes),
      changes,
      views: discover.views,
      // The seller sees their own last write: the version is read on the primary, the rest where it has been replayed.
      caughtUp: () => reads.caughtUp(),
    }),
    sellerStats: new SellerStatsService(db),
    sellerDashboard: new SellerDashboard(signedLinks, config.publicBaseUrl),
    deliveryOptions,
    uploads,
    imports: new ListingImports(db, { maxRows: config.imports.maxRows }),
    catalogTree: new CatalogHierarchy(reads.lagging),
    bulkLookup: discover.bulkLookup,
    listingSearch: discover.listingSearch,
    profiles: new Profiles(reads.lagging),
    accounts: new Accounts(db, uploads, { scryptLogN: config.auth.scryptLogN }),
    accountStats: new AccountStatsService(db, (userId) => conversations.unreadTotal(userId)),
    billingPortal: new BillingPortal(db, signedLinks, config.publicBaseUrl),
    addresses: new SavedAddresses(db, addressLookupProvider(config.addressLookup), {
      retrieveTtlSeconds: config.addressLookup.retrieveTtlSeconds,
    }),
    baskets,
    checkouts: new Checkouts(db, baskets, {
      holdSeconds: config.checkout.holdSeconds,
      publicBaseUrl: config.publicBaseUrl,
      sellerFeeBps: config.money.sellerFeeBps,
    }),
    orderUpdates,
    shipmentTracking: shipmentTracking(config, db),
    shipmentAttachments: new ShipmentAttachments(db, uploads),
    sellerOrders: new SellerOrders(db, periods),
    sellerMoney,
    sellerMoneyPages: new SellerMoneyPages(db, signedLinks, sellerMoney),
    purchases: new Purchases(db, orderUpdates, periods),
    invoices: new Invoices(db),
    reviews: new Reviews(db),
    cases: new Cases(db, uploads, caseUpdates, periods),
    operators: new Operators(db, caseUpdates, periods),
    operatorRoles: new OperatorRoles(db),
    catalogSearch: discover.catalogSearch,
    priceHistory: (urn, days) => priceHistory(reads.lagging, urn, days),
    emailOutbox: new EmailOutbox(db),
    databaseHealth: async () => {
      await db.query('SELECT 1');
    },
    idempotencyKeys: new IdempotencyKeys(db),
    conversations,
    messageAttachments: new MessageAttachments(db, conversations, uploads, new EmbeddedImageModerator(DEFAULT_MODERATION, images)),
    temporalHealth: async () => {
      // A short deadline: a readiness probe must answer quickly even when Temporal is unreachable.
      await temporal.connection.withDeadline(Date.now() + 2000, () => temporal.workflowService.getSystemInfo({}));
    },
    readRouter: reads,
    close: async () => {
      await changes?.close();
      await reads.close();
    },
    modules: {},
  };
  // Feature modules build on the shared services (src/modules).
  return { ...shared, modules: createModuleServices({ config, db, reads, temporal, shared }) };
}

/** A price guide entry is about 250 bytes of JSON: 4 MB keeps some 9,000 (three per item at most). */
const PRICE_GUIDE_ENTRIES_BUDGET_BYTES = 4 * 1024 * 1024;

/** A seller summary is about 300 bytes of JSON: 8 MB keeps some 15,000 sellers. */
const SELLER_SUMMARIES_BUDGET_BYTES = 8 * 1024 * 1024;

/** The longest an item view, ranking or seller index is kept while changes are heard: a safety net, not a freshness bound. */
const KEEP_WHILE_LISTENING_MS = 10 * 60_000;

/** How long to keep what the database's change notifications keep fresh: until it changes while they are heard, else the TTL. */
const keepWhileListening = (ttlMs: number, changes: ItemChanges | undefined) => () =>
  ttlMs > 0 && changes?.listening ? KEEP_WHILE_LISTENING_MS : ttlMs;

/**
 * Discover's hot answers, kept in memory until the database says they changed (bounded by
 * DISCOVER_CACHE_MS): one item cache shared by bulk lookup and catalog search. Everything is
 * read through `reads.fresh`: a replica that has replayed every change heard so far, else the
 * primary, so what a change made the caches forget is never refilled from before the change.
 */
function discoverServices(config: Config, reads: ReadRouter, changes: ItemChanges | undefined) {
  const db = reads.fresh;
  const ttlMs = config.discover.cacheTtlMs;
  // Item views and rankings change only by what the database notifies: while changes are heard
  // they are kept until they change (KEEP_WHILE_LISTENING_MS is a safety net); otherwise for the TTL.
  const keepMs = keepWhileListening(ttlMs, changes);
  const items = new JsonCache((urns) => loadItems(db, urns), keepMs, config.discover.itemCacheBytes);
  changes?.onChange(({ urns }) => items.forget(urns));
  changes?.onReset(() => items.clear());
  // Nothing notifies a seller's public figures (rating, sales): a summary is kept for the TTL.
  const sellers = new JsonCache(
    (ids) => loadUserSummaries(db, ids),
    () => ttlMs,
    SELLER_SUMMARIES_BUDGET_BYTES,
  );
  // A hit's price guide moves with the item's listings (notified) and with sales and the clock
  // (not notified: every sale changes stock, so it is heard too, but a window's edge passing is
  // not): an entry lives for the TTL at most and is forgotten at once when its item changes.
  const priceGuides = new JsonCache(
    (keys) => loadPriceGuideEntries(db, keys),
    () => ttlMs,
    PRICE_GUIDE_ENTRIES_BUDGET_BYTES,
  );
  changes?.onChange(({ urns }) => priceGuides.forget(urns.flatMap(priceGuideKeysOf)));
  changes?.onReset(() => priceGuides.clear());
  return {
    bulkLookup: new BulkLookup(items),
    catalogSearch: new CatalogSearch(db, items, changes, keepMs),
    listingSearch: new ListingSearch(db, changes, ttlMs, keepMs, { items, sellers }, priceGuides),
    views: { items, sellers },
  };
}
