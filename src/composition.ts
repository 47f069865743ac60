import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Config } from './config';
import type { Services, SharedServices } from './http/services';
import { AccessTokens } from './services/auth/access-tokens';
import { Authenticator } from './services/auth/authenticator';
import { OAuthApps } from './services/auth/oauth-apps';
import { Sellers } from './services/sellers';
import { SellerListings } from './services/listings/seller-listings';
import { DeliveryOptions } from './services/sellers/delivery-options';
import { Uploads } from './services/uploads';
import { LocalDiskImageStorage } from './integrations/images/storage';
import { Baskets } from './services/basket/baskets';
import { BillingPortal } from './services/account/billing-portal';
import { SignedLinks } from './services/auth/signed-links';
import { OrderUpdates } from './services/orders/order-updates';
import { SellerMoney } from './services/money/seller-money';
import { OperatorRoles } from './services/operators/operator-roles';
import { IdempotencyKeys } from './services/idempotency/idempotency-keys';
import { Conversations } from './services/conversations/conversations';
import { UserActivity } from './services/users/activity';
import { DEFAULT_DECODE_LIMITS } from './integrations/images/decode';
import { ImageProcessor } from './integrations/images/processor';
import { BulkLookup } from './services/search/bulk-lookup';
import { ListingSearch, loadPriceGuideEntries, priceGuideKeysOf, urnOfPriceGuideKey } from './services/search/listing-search';
import { CatalogSearch } from './services/search/catalog-search';
import { DiscoverChangeListener, type ItemChanges } from './services/catalog/discover-changes';
import { JsonCache } from './services/search/json-cache';
import { coalesceLoads } from './services/search/coalesced-loads';
import { loadItems } from './services/catalog/item-view';
import { loadUserSummaries } from './services/users/user-summary';
import { createLogger } from './logger';
import { EmailOutbox } from './services/email/outbox';
import { createModuleServices } from './modules';
import { conversationNotifyStart } from './modules/conversations';
import { payoutStart } from './modules/money';
import { offerChangeStarts } from './modules/offers';
import { orderActionStarts } from './modules/orders';
import { orderTimings } from './modules/timings';
import { createReadRouter, type ReadRouter } from './db/read-router';

/**
 * The API's composition root: builds the shared services (one owner each, called by the router or
 * by several features) from configuration, the database and Temporal, then every feature module's
 * services on them (src/modules). A feature's own services are built in its module, not here.
 */
export function createServices(config: Config, db: DataSource, temporal: Client): Services {
  const accessTokens = new AccessTokens(config.auth.jwtSecret, config.auth.accessTokenTtlSeconds, config.publicBaseUrl);
  const oauthApps = new OAuthApps(db);
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
  const conversations = new Conversations(db, (imageId) => uploads.imageUrl(imageId), conversationNotifyStart, {
    graceSeconds: config.conversations.notifyGraceSeconds,
    maxDelaySeconds: config.conversations.notifyMaxDelaySeconds,
    inactiveSeconds: config.conversations.inactiveSeconds,
  });
  // One signing rule for every hosted page opened by its link (billing portal, seller money pages).
  const signedLinks = new SignedLinks({ key: config.auth.jwtSecret, ttlSeconds: config.billingPortal.linkTtlSeconds });
  // The database's item change notifications, heard by one connection per API process, keep
  // Discover's caches and seller search indexes fresh. With both caches off nothing is kept, so nothing listens.
  const changes =
    config.discover.cacheTtlMs > 0 || config.search.cacheTtlMs > 0
      ? new DiscoverChangeListener(config.databaseUrl, createLogger(config.logLevel, 'discover-changes'))
      : undefined;
  // Public reads go to a replica when one is healthy (docs/replicas.md).
  const reads = createReadRouter(config, db, createLogger(config.logLevel, 'read-router'));
  // A cache refilled after a change reads from the primary until a replica has replayed the change.
  changes?.onChange((change) => reads.changed(change));
  changes?.onReset(() => reads.changed());
  const discover = discoverServices(config, reads, changes);
  changes?.start();
  reads.start();
  const shared: SharedServices = {
    authenticator: new Authenticator(db, accessTokens, oauthApps, new UserActivity(db)),
    accessTokens,
    oauthApps,
    sellers: new Sellers(db),
    idempotencyKeys: new IdempotencyKeys(db),
    operatorRoles: new OperatorRoles(db),
    signedLinks,
    billingPortal: new BillingPortal(db, signedLinks, config.publicBaseUrl),
    listings: new SellerListings(
      db,
      (imageId) => uploads.imageUrl(imageId),
      {
        ttlMs: config.search.cacheTtlMs,
        keepIndexMs: keepWhileListening(config.search.cacheTtlMs, changes),
        changes,
        views: discover.views,
        // The seller sees their own last write: the version is read on the primary, the rest where it has been replayed.
        caughtUp: () => reads.caughtUp(),
      },
      offerChangeStarts,
    ),
    images,
    uploads,
    deliveryOptions,
    baskets,
    orderUpdates: new OrderUpdates(db, orderTimings(config), orderActionStarts),
    sellerMoney: new SellerMoney(db, config.money, payoutStart),
    conversations,
    bulkLookup: discover.bulkLookup,
    listingSearch: discover.listingSearch,
    catalogSearch: discover.catalogSearch,
    emailOutbox: new EmailOutbox(db),
    databaseHealth: async () => {
      await db.query('SELECT 1');
    },
    temporalHealth: async () => {
      // A short deadline: a readiness probe must answer quickly even when Temporal is unreachable.
      await temporal.connection.withDeadline(Date.now() + 2000, () => temporal.workflowService.getSystemInfo({}));
    },
    readRouter: reads,
    close: async () => {
      await changes?.close();
      await reads.close();
    },
  };
  // Feature modules build on the shared services (src/modules).
  return { ...shared, modules: createModuleServices({ config, db, reads, temporal, shared }) };
}

/** Each of the two kept rankings (by catalog, by price): about 4,800 pages of 20 each (`rankingBytes`). */
const RANKINGS_BUDGET_BYTES = 8 * 1024 * 1024;

/** A price guide entry is about 250 bytes of JSON (about 400 as counted with its key): 4 MB keeps some 10,000 (three per item at most). */
const PRICE_GUIDE_ENTRIES_BUDGET_BYTES = 4 * 1024 * 1024;

/** A seller summary is about 300 bytes of JSON (about 450 as counted with its key): 8 MB keeps some 18,000 sellers. */
const SELLER_SUMMARIES_BUDGET_BYTES = 8 * 1024 * 1024;

/**
 * The most Discover keeps in memory, in bytes: the item and listing caches as configured, and the
 * fixed budgets of rankings, seller summaries and price guide entries. Every cache it names is
 * bounded by its estimate of bytes, so this is what a busy process may hold above an idle one
 * (benchmarks check the API's RSS against it).
 */
export function discoverCacheBudgetBytes(config: Config): number {
  const { itemCacheBytes, listingCacheBytes } = config.discover;
  return itemCacheBytes + listingCacheBytes + 2 * RANKINGS_BUDGET_BYTES + SELLER_SUMMARIES_BUDGET_BYTES + PRICE_GUIDE_ENTRIES_BUDGET_BYTES;
}

/**
 * The most keys one coalesced read asks for: a turn's misses beyond it take a second round trip,
 * so no single read of a busy turn holds the connection long (1,000 random items: ~20 ms).
 */
const KEYS_PER_READ = 1000;

/** The longest an item view, ranking or seller index is kept while changes are heard: a safety net, not a freshness bound. */
const KEEP_WHILE_LISTENING_MS = 10 * 60_000;

/** How long to keep what the database's change notifications keep fresh: until it changes while they are heard, else the TTL. */
const keepWhileListening = (ttlMs: number, changes: ItemChanges | undefined) => () =>
  ttlMs > 0 && changes?.listening ? KEEP_WHILE_LISTENING_MS : ttlMs;

/**
 * Discover's hot answers, kept in memory until the database says they changed (bounded by
 * DISCOVER_CACHE_MS): one item cache shared by bulk lookup and catalog search. Everything is
 * read through `reads.fresh`: a replica that has replayed every change heard so far to what is
 * read, else the primary, so what a change made the caches forget is never refilled from before
 * the change.
 */
function discoverServices(config: Config, reads: ReadRouter, changes: ItemChanges | undefined) {
  const fresh = reads.fresh;
  const ttlMs = config.discover.cacheTtlMs;
  // Item views and rankings change only by what the database notifies: while changes are heard
  // they are kept until they change (KEEP_WHILE_LISTENING_MS is a safety net); otherwise for the TTL.
  const keepMs = keepWhileListening(ttlMs, changes);
  // What the lookups of one event-loop turn miss is read in one round trip (`coalesceLoads`).
  const items = new JsonCache(
    coalesceLoads((urns) => loadItems(fresh.items(urns), urns), KEYS_PER_READ),
    keepMs,
    config.discover.itemCacheBytes,
  );
  changes?.onChange(({ urns }) => items.forget(urns));
  changes?.onReset(() => items.clear());
  // Nothing notifies a seller's public figures (rating, sales): a summary is kept for the TTL.
  const sellers = new JsonCache(
    coalesceLoads((ids) => loadUserSummaries(fresh.all, ids), KEYS_PER_READ),
    () => ttlMs,
    SELLER_SUMMARIES_BUDGET_BYTES,
  );
  // A hit's price guide moves with the item's listings (notified) and with sales and the clock
  // (not notified: every sale changes stock, so it is heard too, but a window's edge passing is
  // not): an entry lives for the TTL at most and is forgotten at once when its item changes.
  const priceGuides = new JsonCache(
    coalesceLoads((keys) => loadPriceGuideEntries(fresh.items(keys.map(urnOfPriceGuideKey)), keys), KEYS_PER_READ),
    () => ttlMs,
    PRICE_GUIDE_ENTRIES_BUDGET_BYTES,
  );
  changes?.onChange(({ urns }) => priceGuides.forget(urns.flatMap(priceGuideKeysOf)));
  changes?.onReset(() => priceGuides.clear());
  return {
    bulkLookup: new BulkLookup(items),
    catalogSearch: new CatalogSearch(fresh, items, changes, keepMs, RANKINGS_BUDGET_BYTES),
    listingSearch: new ListingSearch(fresh, changes, ttlMs, keepMs, config.discover.listingCacheBytes, { items, sellers }, priceGuides),
    views: { items, sellers },
  };
}
