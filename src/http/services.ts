import type { BillingPortal } from '../services/account/billing-portal';
import type { Baskets } from '../services/basket/baskets';
import type { OrderUpdates } from '../services/orders/order-updates';
import type { SellerMoney } from '../services/money/seller-money';
import type { AccessTokens } from '../services/auth/access-tokens';
import type { Authenticator } from '../services/auth/authenticator';
import type { OAuthApps } from '../services/auth/oauth-apps';
import type { SignedLinks } from '../services/auth/signed-links';
import type { Sellers } from '../services/sellers';
import type { DeliveryOptions } from '../services/sellers/delivery-options';
import type { Uploads } from '../services/uploads';
import type { SellerListings } from '../services/listings/seller-listings';
import type { OperatorRoles } from '../services/operators/operator-roles';
import type { IdempotencyKeys } from '../services/idempotency/idempotency-keys';
import type { Conversations } from '../services/conversations/conversations';
import type { BulkLookup } from '../services/search/bulk-lookup';
import type { ListingSearch } from '../services/search/listing-search';
import type { CatalogSearch } from '../services/search/catalog-search';
import type { EmailOutbox } from '../services/email/outbox';
import type { ReadRouter } from '../db/read-router';
import type { ImageProcessor } from '../integrations/images/processor';

/** Each feature module's services, by module name (src/modules). */
export type ModuleServices = Readonly<Record<string, object>>;

/**
 * The services with one owner each that the router itself or several features call, often inside
 * one transaction; built once in `src/composition.ts`. Everything else belongs to a feature
 * module (src/modules), which hands its routes what they use of these. Handlers never see the
 * database.
 */
export interface SharedServices {
  /** The router's credential check (every non-public route). */
  authenticator: Authenticator;
  /** Access tokens: issued by sign-in and the token endpoint, checked by the authenticator. */
  accessTokens: AccessTokens;
  /** Applications: the authenticator and the token endpoints read them, operators register them. */
  oauthApps: OAuthApps;
  /** Seller standing: the router's `seller` auth level, onboarding, vacation. */
  sellers: Sellers;
  /** The router's `Idempotency-Key` handling. */
  idempotencyKeys: IdempotencyKeys;
  /** The router's `operator` auth level; granted by `npm run operators`. */
  operatorRoles: OperatorRoles;
  /** One signing rule for every hosted page opened by its link (billing portal, seller money pages, dashboard). */
  signedLinks: SignedLinks;
  /** The billing portal's page, opened from the account and from the payment simulator. */
  billingPortal: BillingPortal;
  /** A seller's listings: built on Discover's caches and change listener, which the composition root owns and closes. */
  listings: SellerListings;
  /** Images: attached by listings, cases, shipments, messages and avatars. */
  uploads: Uploads;
  /** Image decoding, one bounded queue per process: uploads and message attachment moderation share it. */
  images: ImageProcessor;
  /** What a seller delivers where: read by baskets, offers and the seller's own routes. */
  deliveryOptions: DeliveryOptions;
  /** Baskets: checkout and the wants optimizer fill them. */
  baskets: Baskets;
  /** Order actions (the seller's, the buyer's, the worker's), which open cases and start timers. */
  orderUpdates: OrderUpdates;
  /** The ledger: orders, cases, operators and payouts move money through it. */
  sellerMoney: SellerMoney;
  /** Messages: conversations, and the account's unread count. */
  conversations: Conversations;
  /** Discover's cached reads (one item cache, one change listener), also run by saved searches. */
  bulkLookup: BulkLookup;
  listingSearch: ListingSearch;
  catalogSearch: CatalogSearch;
  /** The e-mail outbox, read by the development-only routes. */
  emailOutbox: EmailOutbox;
  /** Resolves when PostgreSQL answers; rejects otherwise (for /readyz). */
  databaseHealth: () => Promise<void>;
  /** Resolves when Temporal answers; rejects otherwise (for /readyz). */
  temporalHealth: () => Promise<void>;
  /** Which database each read goes to: the primary or a replica (docs/replicas.md); its state feeds /metrics. */
  readRouter: ReadRouter;
  /** Ends what the services keep open beside the pool (the Discover change listener, the replicas' pools); before the pool closes. */
  close: () => Promise<void>;
}

/** What the app is built from: the shared services and what each feature module built on them. */
export interface Services extends SharedServices {
  /** What each feature module built for its routes, by module name (src/modules; `servicesOf` reads one typed). */
  modules: ModuleServices;
}
