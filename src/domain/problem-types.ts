/**
 * Every problem type the API answers with: its code (the `type` is `/problems/{code}`), its HTTP
 * status, and when it is answered, per area of the API. The one list: services and the HTTP layer
 * can only name codes from it (`ProblemCode`; `CodeWithStatus` ties a code to its status),
 * `GET /problems/{code}` describes each one, and docs/errors.md is generated from it
 * (`npm run docs:errors`; `npm run lint` fails when the page is stale). Pure data: workflows
 * name their refusals from it too.
 */

/** The areas docs/errors.md has a section for, in its order, with the prose around each table. */
export const PROBLEM_AREAS = [
  {
    key: 'general',
    title: null,
    intro: `\`type\` of each problem+json answer is \`/problems/{code}\`. Clients should branch on \`type\` (or
\`status\`), never on \`detail\`, which is prose for humans. The OAuth endpoints answer RFC 6749
\`{error, error_description}\` instead ([auth.md](auth.md)). Each \`type\` resolves: \`GET /problems/{code}\` is a page
saying what this table says about that code. How \`detail\` and these texts are written: [errors-style.md](errors-style.md).`,
    outro: `Discover routes (see [discover.md](discover.md)) add no codes of their own: a bad search query,
bulk-lookup body (over 200 URNs, a URN ending in \`/\`, each named in \`errors\`) or listing-search
body is \`validation-failed\`; an unknown catalog node, item (price history) or profile is
\`not-found\`. A listing search for an unknown item is not an error: it answers an empty result.`,
  },
  {
    key: 'cases',
    title: 'Cases',
    intro: `See [cases.md](cases.md). Refusals by the case workflow's Update validators arrive as these
codes; nothing changes when they do.`,
    outro: ``,
  },
  {
    key: 'conversations',
    title: 'Conversations',
    intro: `See [conversations.md](conversations.md).`,
    outro: ``,
  },
  {
    key: 'wants',
    title: 'Wants lists',
    intro: `See [wants.md](wants.md). A list or line that is not the caller's is \`not-found\`, as a missing one.`,
    outro: ``,
  },
  {
    key: 'alerts',
    title: 'Saved searches, alerts and notifications',
    intro: `See [alerts.md](alerts.md). A saved search, alert, watched listing or notification that is not the caller's is \`not-found\`, as a missing one.`,
    outro: ``,
  },
  {
    key: 'offers',
    title: 'Offers',
    intro: `See [offers.md](offers.md). An offer that is not the caller's (as buyer on \`/user/offers\`, as seller on
\`/seller/offers\`) is \`not-found\`, as a missing one. Refusals by the offer workflow's Update validator arrive as
these codes; nothing changes when they do.`,
    outro: ``,
  },
] as const;

export type ProblemArea = (typeof PROBLEM_AREAS)[number]['key'];

export interface ProblemType {
  status: number;
  /** When the problem is answered, per area (markdown). */
  when: Partial<Record<ProblemArea, string>>;
}

export const PROBLEM_TYPES = {
  'validation-failed': {
    status: 400,
    when: {
      general:
        'A body, query, path or header field is invalid; `errors` lists each (at most 20; `errorCount` then gives the total). Also: any string with NUL or an unpaired surrogate.',
      conversations: 'A body over 4000 characters, or empty once markup is removed (`errors` names `body`).',
    },
  },
  'malformed-body': {
    status: 400,
    when: {
      general: 'The body is not valid JSON.',
    },
  },
  'malformed-request': {
    status: 400,
    when: {
      general: 'The request is not valid HTTP/1.1 (refused by the server before routing; the connection is closed).',
    },
  },
  'invalid-verification-code': {
    status: 400,
    when: {
      general: 'The e-mail change code is wrong for the request waiting for it.',
    },
  },
  'upload-not-ready': {
    status: 400,
    when: {
      general: "Attaching an upload (or using it as avatar/cover) that is unknown, not the caller's or not finished.",
      cases: "Case attachment finalize of an upload that is unknown, not the caller's, or still a draft.",
      conversations: "Attaching an upload that is unknown, not the caller's, or has no bytes yet.",
    },
  },
  'image-undecodable': {
    status: 400,
    when: {
      general:
        'An avatar or cover upload whose bytes cannot be decoded as an image (a safety net: undecodable bytes are refused when they arrive, `image-rejected`).',
    },
  },
  'current-password-incorrect': {
    status: 400,
    when: {
      general: '`PATCH /user/account` with a `password.current` that is wrong.',
    },
  },
  'invalid-cursor': {
    status: 400,
    when: {
      general:
        "A cursor-paged list (`GET /seller/transfers`, `GET /seller/payouts`) given a cursor that is not one of the caller's records.",
    },
  },
  'lookup-id-invalid': {
    status: 400,
    when: {
      general: 'Address lookup retrieve with an id that is unknown, unavailable or a container; search again.',
    },
  },
  'lookup-id-unknown': {
    status: 400,
    when: {
      general: 'A saved address whose `lookupId` the caller did not retrieve through the lookup recently.',
    },
  },
  'import-csv-invalid': {
    status: 400,
    when: {
      general: 'An import CSV whose header misses required columns or names unknown ones.',
      wants:
        'A wants list CSV import whose header misses `quantity` or names a column that is not one of the export’s; nothing is imported.',
    },
  },
  'wants-card-unknown': {
    status: 400,
    when: {
      wants:
        'A wants line naming a `urn` that is no catalog item, a `card.game` that is no game, or a `card.name` no item of that game has (case-blind); `errors` names the field.',
      alerts: 'A price alert naming an item or a card the catalog does not have, as for a wants line.',
    },
  },
  'import-too-many-rows': {
    status: 400,
    when: {
      general: 'An import CSV with more non-empty lines after its header than `IMPORT_MAX_ROWS` (default 50,000).',
    },
  },
  'invalid-items': {
    status: 400,
    when: {
      general:
        "An order action (`ship`, `dispute`) naming items that are not the order's, named twice, in the wrong state or over their quantity; `errors` lists each (`items.{i}.id` / `items.{i}.quantity`).",
    },
  },
  unauthenticated: {
    status: 401,
    when: {
      general: 'Missing or invalid credentials.',
    },
  },
  'bearer-token-required': {
    status: 403,
    when: {
      general:
        "A personal access token or a third-party application's token was used on a route that takes only the user's own access token.",
    },
  },
  'seller-account-required': {
    status: 403,
    when: {
      general: 'A `/seller/*` route was called without an active seller account.',
    },
  },
  'operator-required': {
    status: 403,
    when: {
      general:
        'An `/operator/*` route called by a user without the operator role (see [sellers-operators.md](sellers-operators.md#operators)).',
    },
  },
  'self-review': {
    status: 403,
    when: {
      general: 'A review of an order that has the caller on both sides (see [reviews.md](reviews.md)).',
    },
  },
  'not-found': {
    status: 404,
    when: {
      general: "No such route, or a resource that does not exist or is not the caller's.",
      cases:
        "The case is missing or not the caller's (buyer: not on their purchase; seller: not on their order), or the named outcome is not in the case.",
      conversations:
        "A conversation the caller is not in; a message not the caller's in it; an order the caller is not a party to; a missing, deleted or (another seller's) hidden listing.",
    },
  },
  'billing-link-invalid': {
    status: 404,
    when: {
      general: 'A billing portal link that was altered, forged or has expired.',
    },
  },
  'simulator-link-invalid': {
    status: 404,
    when: {
      general:
        'A seller payouts or billing page link (from `GET /seller/dashboard`) that was altered, forged, has expired or was made for the other page.',
    },
  },
  'method-not-allowed': {
    status: 405,
    when: {
      general: 'The path exists with other methods, listed in `Allow`; also TRACE and other methods the API does not implement.',
    },
  },
  'idempotency-key-in-use': {
    status: 409,
    when: {
      general: 'A request with the same `Idempotency-Key` is still being processed.',
    },
  },
  'idempotency-key-answer-lost': {
    status: 409,
    when: {
      general:
        'The request with this `Idempotency-Key` was applied (its transaction committed), but the server stopped before storing its answer; it is not applied again. Read the resource to see the outcome (see [conventions.md](conventions.md#idempotent-requests)).',
    },
  },
  'idempotency-key-reused': {
    status: 422,
    when: {
      general: 'The `Idempotency-Key` was already used with a different request (method, path, query or body).',
    },
  },
  'email-taken': {
    status: 409,
    when: {
      general: 'Registration, e-mail change or username change to an address/name in use.',
    },
  },
  'username-taken': {
    status: 409,
    when: {
      general: 'Registration, e-mail change or username change to an address/name in use.',
    },
  },
  'email-unchanged': {
    status: 409,
    when: {
      general: 'An e-mail change to the address the account already has.',
    },
  },
  'no-pending-email-change': {
    status: 409,
    when: {
      general:
        'Confirming an e-mail change when no change to that address waits for a code (never requested, replaced, used, expired or retired): request a new code.',
    },
  },
  'address-limit-reached': {
    status: 409,
    when: {
      general: 'An 11th saved address (see [account.md](account.md)).',
    },
  },
  'wants-list-limit-reached': {
    status: 409,
    when: {
      wants: 'Creating a wants list when the caller already keeps 20.',
    },
  },
  'wants-list-name-taken': {
    status: 409,
    when: {
      wants: 'Creating or renaming a wants list to a name another of the caller’s lists has.',
    },
  },
  'wants-line-limit-reached': {
    status: 409,
    when: {
      wants: 'Adding a line to a list of 1,000 lines, or an import that would take it over 1,000 (nothing is imported then).',
    },
  },
  'saved-search-limit-reached': {
    status: 409,
    when: {
      alerts: 'Saving a search when the caller already keeps 50.',
    },
  },
  'price-alert-limit-reached': {
    status: 409,
    when: {
      alerts: 'Creating a price alert when the caller already keeps 100.',
    },
  },
  'watchlist-limit-reached': {
    status: 409,
    when: {
      alerts: 'Watching a listing when the caller already watches 200.',
    },
  },
  'pat-limit-reached': {
    status: 409,
    when: {
      general: 'Creating a 6th active personal access token.',
    },
  },
  'pat-name-taken': {
    status: 409,
    when: {
      general: 'The caller already has a token with that name.',
    },
  },
  'seller-exists': {
    status: 409,
    when: {
      general: '`POST /seller` for a caller who already has a seller account.',
    },
  },
  'seller-suspended': {
    status: 409,
    when: {
      general: 'An operator suspending a seller already suspended, or reinstating one who is not.',
    },
  },
  'seller-active': {
    status: 409,
    when: {
      general: 'An operator suspending a seller already suspended, or reinstating one who is not.',
    },
  },
  'webhook-limit-reached': {
    status: 409,
    when: {
      general: 'Creating a webhook endpoint beyond the per-seller limit (20).',
    },
  },
  'webhook-delivery-in-progress': {
    status: 409,
    when: {
      general: 'Replaying a webhook delivery that is still being attempted.',
    },
  },
  'quantity-below-reserved': {
    status: 409,
    when: {
      general: 'A listing update lowering `quantity` below the units open checkouts hold.',
    },
  },
  'listing-locked': {
    status: 409,
    when: {
      general: 'Deleting a listing that open checkouts hold units of.',
    },
  },
  'attachment-limit-reached': {
    status: 409,
    when: {
      general: 'An 11th image on a listing; a 6th proof-of-postage image on a shipment.',
      conversations: 'A 5th image on a message.',
    },
  },
  'upload-already-attached': {
    status: 409,
    when: {
      general: 'A proof-of-postage upload already attached to another shipment.',
      conversations: 'An upload already attached to a message.',
    },
  },
  'upload-finished': {
    status: 409,
    when: {
      general: 'Uploading bytes to an upload that already has them; also the loser of two `PUT`s racing for one upload.',
    },
  },
  'upload-quota-reached': {
    status: 409,
    when: {
      general:
        '`POST /uploads` by a user holding `UPLOAD_MAX_PENDING` (default 50) unattached uploads, or a `PUT /uploads/{id}` that would take their unattached bytes over `UPLOAD_MAX_PENDING_MB` (default 200); attach uploads or wait for the collector ([seller-listings.md](seller-listings.md#quota-and-collection)).',
    },
  },
  'delivery-option-limit-reached': {
    status: 409,
    when: {
      general: 'A 21st delivery option.',
    },
  },
  'own-listing': {
    status: 409,
    when: {
      general: "Putting one's own listing in the basket.",
      alerts: "Watching one's own listing.",
    },
  },
  'insufficient-stock': {
    status: 409,
    when: {
      general: "A basket quantity above the listing's available units.",
    },
  },
  'basket-full': {
    status: 409,
    when: {
      general: 'A 101st listing in a basket.',
    },
  },
  'optimization-outdated': {
    status: 409,
    when: {
      general:
        "A wants list's optimized basket taken into the basket after the market moved: `listingIds` names every pick no longer live, repriced, or without the units (the basket is unchanged).",
    },
  },
  'optimization-not-finished': {
    status: 409,
    when: {
      general: 'An optimization still running, or failed, taken into the basket.',
    },
  },
  'listings-unavailable': {
    status: 409,
    when: {
      general:
        'Checkout refused; `listingIds` names every listing that failed (own, not live, not enough available, no delivery to the address, or taken by another buyer meanwhile). Also a payment whose seller was suspended after the checkout opened.',
    },
  },
  'basket-empty': {
    status: 409,
    when: {
      general: 'Checkout of an empty basket, or without a delivery address; `listingIds` is `[]`.',
    },
  },
  'delivery-address-required': {
    status: 409,
    when: {
      general: 'Checkout of an empty basket, or without a delivery address; `listingIds` is `[]`.',
    },
  },
  'checkout-closed': {
    status: 409,
    when: {
      general: 'A payment outcome for a session that already failed or expired (or a failure after success).',
    },
  },
  'action-not-allowed': {
    status: 409,
    when: {
      general: "An order action the caller's side may not take (e.g. a seller `receive`).",
      cases: '`resolve` by anyone but the seller (the buyer route already refuses it as 400).',
    },
  },
  'order-already-shipped': {
    status: 409,
    when: {
      general:
        'Cancelling (seller `cancel`) or asking to cancel (buyer `request-cancel`) an order that has shipped, even in part, is cancelled already, or was refunded in full.',
    },
  },
  'order-cancelled': {
    status: 409,
    when: {
      general:
        'Cancelling (seller `cancel`) or asking to cancel (buyer `request-cancel`) an order that has shipped, even in part, is cancelled already, or was refunded in full.',
    },
  },
  'order-refunded': {
    status: 409,
    when: {
      general:
        'Cancelling (seller `cancel`) or asking to cancel (buyer `request-cancel`) an order that has shipped, even in part, is cancelled already, or was refunded in full.',
    },
  },
  'cancellation-already-requested': {
    status: 409,
    when: {
      general: "A buyer's second `request-cancel` on an order: a request is made once (its state is the order's `cancellationRequest`).",
    },
  },
  'no-pending-cancellation-request': {
    status: 409,
    when: {
      general: "A seller's `decline-cancel` on an order with no PENDING cancellation request.",
    },
  },
  'order-not-shipped': {
    status: 409,
    when: {
      general: 'Buyer `receive` of an order not (yet) shipped, or received already; a tracking-number correction on a received order.',
    },
  },
  'order-already-received': {
    status: 409,
    when: {
      general: 'Buyer `receive` of an order not (yet) shipped, or received already; a tracking-number correction on a received order.',
    },
  },
  'case-already-open': {
    status: 409,
    when: {
      general: 'A dispute on an order that has a case not yet closed.',
    },
  },
  'order-not-received': {
    status: 409,
    when: {
      general: 'A review of an order that has not been received yet.',
    },
  },
  'review-exists': {
    status: 409,
    when: {
      general: 'A second review of the same order by the same reviewer (also after deleting the first).',
    },
  },
  'review-revision-limit': {
    status: 409,
    when: {
      general: "Revising a review that was already revised (the spec's limit: once).",
    },
  },
  'request-timeout': {
    status: 408,
    when: {
      general:
        "The request's headers or body did not arrive within Node's request timeouts (refused before routing; the connection is closed).",
    },
  },
  'image-rejected': {
    status: 422,
    when: {
      general:
        '`PUT /uploads/{id}` with bytes that cannot be used as an image; `reasons` lists each (`undecodable`, `type-mismatch`, `too-many-bytes`, `too-many-pixels`, `too-many-frames`, `animation-too-large`; budgets in [seller-listings.md](seller-listings.md#image-processing)).',
      conversations: 'Moderation refused the image; `reasons` lists each reason.',
    },
  },
  'upload-rate-limited': {
    status: 429,
    when: {
      general:
        'Over `UPLOADS_PER_MINUTE` (default 60) `POST /uploads` in a minute; `Retry-After` (and `retryAfter`) says when to try again.',
    },
  },
  'payload-too-large': {
    status: 413,
    when: {
      general: "Body over the route's limit.",
    },
  },
  'request-header-too-large': {
    status: 431,
    when: {
      general: 'The request line (URL included) and headers exceed 16 kB (refused before routing; the connection is closed).',
    },
  },
  'unsupported-media-type': {
    status: 415,
    when: {
      general: 'Body in an encoding the route does not accept.',
    },
  },
  'unsupported-image-type': {
    status: 415,
    when: {
      general: 'Upload bytes that are not a PNG, JPEG or WebP image.',
    },
  },
  internal: {
    status: 500,
    when: {
      general: 'A fault on our side; quote `requestId`.',
    },
  },
  'not-ready': {
    status: 503,
    when: {
      general: '`/readyz`: a dependency is down.',
    },
  },
  'temporarily-unavailable': {
    status: 503,
    when: {
      general:
        'Also: an image upload, attachment or avatar while `IMAGE_DECODE_QUEUE` (default 64) decodes already wait their turn in this API process; retry shortly. A dependency did not answer (a case Update with Temporal unreachable or slow), or could not be reached at all (PostgreSQL restarting: connection refused or cut, SQLSTATE class 08 or 57P01–57P03); retry, with the same `Idempotency-Key`. The body carries no internal message: the cause is logged with the request id. Work started in the background never answers this: it waits in the start outbox.',
      cases: 'The case workflow did not answer within 10 s (the action may still apply: read the case before retrying).',
    },
  },
  'address-lookup-unavailable': {
    status: 503,
    when: {
      general: 'The address lookup provider failed or timed out; retry.',
    },
  },
  'invalid-image-id': {
    status: 400,
    when: {
      cases: 'Case attachment finalize with an id not of the shape `case/{caseId}/attachments/{attachmentId}` for this case.',
    },
  },
  'item-already-disputed': {
    status: 409,
    when: {
      cases: 'A dispute names an order item that is already in a case that is not CLOSED.',
    },
  },
  'outcome-accepted': {
    status: 409,
    when: {
      cases: 'Proposing, accepting or rejecting after an outcome was accepted: an accepted outcome is final.',
    },
  },
  'case-closed': {
    status: 409,
    when: {
      cases: 'Any action on a CLOSED case.',
    },
  },
  'own-outcome': {
    status: 409,
    when: {
      cases: "Accepting or rejecting one's own proposal (only the opposite party may).",
    },
  },
  'outcome-not-pending': {
    status: 409,
    when: {
      cases: 'Accepting or rejecting an outcome already rejected or superseded.',
    },
  },
  'case-not-escalatable': {
    status: 409,
    when: {
      cases: 'Escalating a case that is not OPEN or REMEDIATION.',
    },
  },
  'case-not-escalated': {
    status: 409,
    when: {
      cases: 'An operator decision on a case that is not ESCALATED.',
    },
  },
  'case-not-settled': {
    status: 409,
    when: {
      cases: '`resolve` on a case without an accepted RETURN.',
    },
  },
  'change-refused': {
    status: 400,
    when: {
      cases: "The action's data cannot be stored (a database data or integrity error); the case is unchanged.",
    },
  },
  'change-not-recorded': {
    status: 503,
    when: {
      cases: "The action's write kept failing through its bounded retries; the case is unchanged; retry later.",
    },
  },
  'invalid-recipient': {
    status: 400,
    when: {
      conversations:
        '`recipientId` is the caller, not the other party of the order, or not the seller of the listing (also a seller asking about their own listing).',
    },
  },
  'conversation-locked': {
    status: 409,
    when: {
      conversations: 'A message or attachment (or a create that would add to it) while the conversation is locked.',
    },
  },
  'locked-by-other-party': {
    status: 409,
    when: {
      conversations: 'Unlocking a conversation the other participant locked.',
    },
  },
  'message-rate-limited': {
    status: 429,
    when: {
      conversations: 'Over 20 messages in a minute; `Retry-After` (and `retryAfter`) says when to send again.',
    },
  },
  'bad-request': {
    status: 400,
    when: {
      general: 'A request the HTTP layer refuses for a reason no other code names (rare; `detail` says what).',
    },
  },
  'invalid-grant': {
    status: 400,
    when: {
      general:
        'A code, refresh token or password the token endpoint cannot honour (answered there as RFC 6749 `invalid_grant`; see [auth.md](auth.md)).',
    },
  },
  'invalid-client': {
    status: 401,
    when: {
      general:
        'Unknown or disabled application, or wrong client credentials, at the token, revocation or introspection endpoint (answered there as RFC 6749 `invalid_client`; see [auth.md](auth.md)).',
    },
  },
  'oauth-app-disabled': {
    status: 409,
    when: {
      general: 'An operator disabling an application that is already disabled.',
    },
  },
  'oauth-app-enabled': {
    status: 409,
    when: {
      general: 'An operator enabling an application that is not disabled.',
    },
  },
  'oauth-app-public': {
    status: 409,
    when: {
      general: 'Rotating the secret of a public application, which has none.',
    },
  },
  'too-many-sign-in-attempts': {
    status: 429,
    when: {
      general:
        'Too many failed sign-ins for one account name; `Retry-After` (and `retryAfter`) says when to try again (see [auth.md](auth.md)).',
    },
  },
  'not-implemented': {
    status: 501,
    when: {
      general: 'A request method the HTTP server does not implement at all.',
    },
  },
  'offers-disabled': {
    status: 409,
    when: {
      offers: 'An offer on a listing whose seller has not turned offers on.',
    },
  },
  'offer-own-listing': {
    status: 403,
    when: {
      offers: "An offer on a listing of the caller's own.",
    },
  },
  'offer-blocked': {
    status: 403,
    when: {
      offers: 'An offer to a seller who locked a conversation with the caller (a block).',
    },
  },
  'offer-seller-away': {
    status: 409,
    when: {
      offers: 'An offer to a seller on vacation (or no longer selling).',
    },
  },
  'offer-listing-unavailable': {
    status: 409,
    when: {
      offers: 'An offer on a listing buyers cannot buy now (hidden, invalid or without stock).',
    },
  },
  'offer-already-open': {
    status: 409,
    when: {
      offers: 'A second open offer (pending, countered or accepted and unpaid) by one buyer on one listing.',
    },
  },
  'offer-limit-reached': {
    status: 409,
    when: {
      offers: 'A fourth offer by one buyer on one listing within 48 hours.',
    },
  },
  'offer-not-below-price': {
    status: 422,
    when: {
      offers: "An offer or counter at or above the listing's price (offers are below it only).",
    },
  },
  'offer-quantity-unavailable': {
    status: 422,
    when: {
      offers: 'An offer or counter for more units than the listing has.',
    },
  },
  'offer-closed': {
    status: 409,
    when: {
      offers: 'An action on an offer that is over (declined, withdrawn, expired, paid, lapsed) or accepted.',
    },
  },
  'offer-not-your-turn': {
    status: 409,
    when: {
      offers: "Accepting, declining or countering while the offer awaits the other party's answer.",
    },
  },
  'offer-action-not-allowed': {
    status: 422,
    when: {
      offers: "A seller withdrawing, or a seller's counter changing the quantity.",
    },
  },
  'offer-counter-price-required': {
    status: 422,
    when: {
      offers: 'A counter without `unitPrice`.',
    },
  },
  'offer-counter-unchanged': {
    status: 422,
    when: {
      offers: "A counter at the offer's last price.",
    },
  },
  'offer-stock-unavailable': {
    status: 409,
    when: {
      offers:
        "Accepting when the listing's units are held or sold: another accepted offer or a checkout took them first. The offer stays open.",
    },
  },
  'offer-listing-ended': {
    status: 409,
    when: {
      offers:
        'Accepting or countering when the listing was deleted, sold out or repriced to at most the offer: the offer ends (declined) with that notice.',
    },
  },
  'offer-not-accepted': {
    status: 409,
    when: {
      offers: 'Opening the checkout of an offer that is not accepted (or already paid or lapsed).',
    },
  },
  'offer-no-delivery': {
    status: 409,
    when: {
      offers: "Opening an offer's checkout to a country the seller does not deliver to.",
    },
  },
} as const satisfies Record<string, ProblemType>;

export type ProblemCode = keyof typeof PROBLEM_TYPES;

/** The codes answered with `status`: what a helper that always answers that status may name. */
export type CodeWithStatus<S extends number> = {
  [C in ProblemCode]: (typeof PROBLEM_TYPES)[C]['status'] extends S ? C : never;
}[ProblemCode];

export const isProblemCode = (code: string): code is ProblemCode => Object.hasOwn(PROBLEM_TYPES, code);
