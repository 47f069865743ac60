/**
 * What each tag of the route table groups, shown with the tag in /openapi.json and the docs
 * page. A route with a tag not listed here still works; the OpenAPI lint in `npm run lint`
 * then fails until it is described.
 */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Auth: 'Registration, the OAuth 2.0 authorization server (token, authorization page, discovery, revocation, introspection). See docs/auth.md.',
  'Linked applications': 'Third-party applications the caller linked through the authorization code flow; unlinking takes effect at once.',
  'Personal access tokens': 'Long-lived tokens for automation, sent as `Authorization: ApiKey <token>`; shown once, at most 5 active.',
  Account: "The caller's account: details, e-mail change with a verification code, stats, billing portal. See docs/account.md.",
  Addresses: 'Saved delivery addresses and assisted address lookup. See docs/account.md.',
  Seller: 'Seller onboarding, status, dashboard links and statistics.',
  'Seller listings': "A seller's listings: creation (one or in bulk), updates, images, visibility.",
  'Delivery options': 'Delivery options a seller offers, by destination country.',
  'Seller imports': 'Bulk listing import from a CSV upload, processed in the background.',
  'Seller orders': 'Orders sold: shipping, cancelling, disputes from the seller side.',
  'Seller cases': 'Cases (disputes) on orders the seller sold.',
  'Seller finance': "The seller's money: balance, transfers (releases and reversals) and payouts. See docs/money.md.",
  Uploads: 'Image uploads: create an upload, PUT the bytes, then attach it by id.',
  Discover: 'Public catalog browsing: search, item pages, listing search, price history, profiles.',
  Conversations: 'Buyer–seller messaging about a listing or an order: inbox, unread counts, attachments. See docs/conversations.md.',
  Basket: "The buyer's basket and checkout into the hosted payment page.",
  'Payment simulator': 'The hosted payment page that stands in for a payment provider in development and tests.',
  Purchases: 'Orders bought: receipt, disputes, invoices.',
  'Wants lists':
    "Buyers' lists of the cards they look for, with what is on sale for each line; deck-list and CSV import, CSV export. See docs/wants.md.",
  'Saved searches': 'Catalog and listing searches saved under a name, run again by id. See docs/alerts.md.',
  Alerts:
    'Price alerts, the watchlist and the notifications they fire, with an e-mail digest at most every 15 minutes. See docs/alerts.md.',
  Offers: "A buyer's offers on listings: make one, counter, accept, withdraw, and pay an accepted one. See docs/offers.md.",
  'Seller offers': 'Offers on the seller’s listings: accept, decline or counter, by deadline. See docs/offers.md.',
  Reviews: 'Reviews of completed orders, by buyer and seller.',
  Cases: 'Cases (disputes) on purchases, with outcome proposals and escalation.',
  Webhooks: 'Seller webhook endpoints, deliveries and replays; payloads are signed (docs/webhooks.md).',
  Operators: 'Marketplace operators: escalated cases, seller standing, the audit log. See docs/sellers-operators.md.',
  System: 'Health, readiness, this document and its docs page.',
  Development: 'Helpers available only when NODE_ENV=development.',
};
