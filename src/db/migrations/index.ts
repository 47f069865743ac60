import { Foundation1732579200000 } from './1732579200000-foundation';
import { CatalogListingsOutbox1732665600000 } from './1732665600000-catalog-listings-outbox';
import { Webhooks1732752000000 } from './1732752000000-webhooks';
import { CatalogSearch1732838400000 } from './1732838400000-catalog-search';
import { SellerListings1732924800000 } from './1732924800000-seller-listings';
import { CheckoutOrders1733011200000 } from './1733011200000-checkout-orders';
import { Reviews1733097600000 } from './1733097600000-reviews';
import { Cases1733184000000 } from './1733184000000-cases';
import { OAuthApps1733270400000 } from './1733270400000-oauth-apps';
import { SignInThrottle1733356800000 } from './1733356800000-sign-in-throttle';
import { WorkflowStarts1733443200000 } from './1733443200000-workflow-starts';
import { IdempotencyKeys1733443400000 } from './1733443400000-idempotency-keys';
import { Conversations1733443500000 } from './1733443500000-conversations';
import { AccountAddresses1733443600000 } from './1733443600000-account-addresses';
import { ItemMarket1733443700000 } from './1733443700000-item-market';
import { DiscoverIndexes1733443700001 } from './1733443700001-discover-indexes';
import { CatalogNames1733443700002 } from './1733443700002-catalog-names';
import { SellersOperators1733443800000 } from './1733443800000-sellers-operators';
import { MoneyLedger1733443900000 } from './1733443900000-money-ledger';
import { RefundAdjustments1733443900100 } from './1733443900100-refund-adjustments';
import { OrderCancellation1733443900200 } from './1733443900200-order-cancellation';
import { Payouts1733443900300 } from './1733443900300-payouts';
import { OAuthRevocation1733444000000 } from './1733444000000-oauth-revocation';
import { RetentionIndexes1733444100000 } from './1733444100000-retention-indexes';
import { OrderDeliveredAt1733444200000 } from './1733444200000-order-delivered-at';
import { CaseOutcomeMoney1733500000000 } from './1733500000000-case-outcome-money';
import { ShipmentAttachments1733502000000 } from './1733502000000-shipment-attachments';
import { WorkflowStartFairness1733505000000 } from './1733505000000-workflow-start-fairness';
import { ItemMarketRefreshPerItem1733506000000 } from './1733506000000-item-market-refresh-per-item';
import { DiscoverChangeNotifications1733510000000 } from './1733510000000-discover-change-notifications';
import { CheckoutExpiryIndex1733520000000 } from './1733520000000-checkout-expiry-index';
import { RoundRobinIndexes1733530000000 } from './1733530000000-round-robin-indexes';
import { RefundCaps1733540000000 } from './1733540000000-refund-caps';
import { MoneyReconciliations1733540000100 } from './1733540000100-money-reconciliations';
import { UploadQuota1733550000000 } from './1733550000000-upload-quota';
import { OAuthCodeRedirectGiven1733561000000 } from './1733561000000-oauth-code-redirect-given';
import { OAuthRevokedSessions1733562000000 } from './1733562000000-oauth-revoked-sessions';
import { IdempotencyCommitted1733563000000 } from './1733563000000-idempotency-committed';
import { NoCaseWebhookEvents1733564000000 } from './1733564000000-no-case-webhook-events';
import { PurchaseCancelled1733570000000 } from './1733570000000-purchase-cancelled';
import { CancellationDeclined1733571000000 } from './1733571000000-cancellation-declined';
import { Wants1733580000000 } from './1733580000000-wants';
import { Alerts1733620000000 } from './1733620000000-alerts';
import { PriceGuide1733610000000 } from './1733610000000-price-guide';
import { Offers1733630000000 } from './1733630000000-offers';
import { NotificationsBulkWrites1733635000000 } from './1733635000000-notifications-bulk-writes';
import { ShipmentTrackingSource1733650000000 } from './1733650000000-shipment-tracking-source';
import { StatsVersionsByTriggers1733640000000 } from './1733640000000-stats-versions-by-triggers';
import { CatalogSearchTable1733670000000 } from './1733670000000-catalog-search-table';
import { CatalogSearchNamePrice1733690000000 } from './1733690000000-catalog-search-name-price';
import { CatalogNameItems1733700000000 } from './1733700000000-catalog-name-items';

/** Every migration, in order. Listed explicitly so bundlers and ts-node need no globbing. */
export const migrations = [
  Foundation1732579200000,
  CatalogListingsOutbox1732665600000,
  Webhooks1732752000000,
  CatalogSearch1732838400000,
  SellerListings1732924800000,
  CheckoutOrders1733011200000,
  Reviews1733097600000,
  Cases1733184000000,
  OAuthApps1733270400000,
  SignInThrottle1733356800000,
  WorkflowStarts1733443200000,
  IdempotencyKeys1733443400000,
  Conversations1733443500000,
  AccountAddresses1733443600000,
  ItemMarket1733443700000,
  DiscoverIndexes1733443700001,
  CatalogNames1733443700002,
  SellersOperators1733443800000,
  MoneyLedger1733443900000,
  RefundAdjustments1733443900100,
  OrderCancellation1733443900200,
  Payouts1733443900300,
  OAuthRevocation1733444000000,
  RetentionIndexes1733444100000,
  OrderDeliveredAt1733444200000,
  CaseOutcomeMoney1733500000000,
  ShipmentAttachments1733502000000,
  WorkflowStartFairness1733505000000,
  ItemMarketRefreshPerItem1733506000000,
  DiscoverChangeNotifications1733510000000,
  CheckoutExpiryIndex1733520000000,
  RoundRobinIndexes1733530000000,
  RefundCaps1733540000000,
  MoneyReconciliations1733540000100,
  UploadQuota1733550000000,
  OAuthCodeRedirectGiven1733561000000,
  OAuthRevokedSessions1733562000000,
  IdempotencyCommitted1733563000000,
  NoCaseWebhookEvents1733564000000,
  PurchaseCancelled1733570000000,
  CancellationDeclined1733571000000,
  Wants1733580000000,
  PriceGuide1733610000000,
  Alerts1733620000000,
  Offers1733630000000,
  NotificationsBulkWrites1733635000000,
  ShipmentTrackingSource1733650000000,
  StatsVersionsByTriggers1733640000000,
  CatalogSearchTable1733670000000,
  CatalogSearchNamePrice1733690000000,
  CatalogNameItems1733700000000,
];
