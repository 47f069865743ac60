import Joi from '../joi';
import type { Schema } from 'joi';
import { isCatalogUrn, NO_TRAILING_SLASH, URN_MAX_LENGTH, URN_SHAPE } from '../services/catalog/urn';
import { ORDER_ACTIONS, ORDER_STATUSES } from '../domain/orders/order-machine';
import { TRACKING_SOURCES } from '../domain/orders/tracking-source';
import { CASE_STATUSES, CASE_VIEW_ACTIONS, OUTCOME_TYPES } from '../domain/cases/machine';
import { CASE_REASONS } from '../services/orders/order-engine';
import { SIGNED_LINK_TOKEN } from '../services/auth/signed-links';

/** Shared field schemas, so one rule (e.g. what a username is) is written once. */
export const email = Joi.string().trim().email({ tlds: false }).max(254);
export const username = Joi.string()
  .pattern(/^[A-Za-z0-9][A-Za-z0-9_.-]{2,31}$/)
  .message('"username" must be 3-32 characters: letters, digits, "_", "." or "-", starting with a letter or digit');
/** At least 10 characters, counted in code points as every length is (src/joi.ts): 5 emoji are 5. */
export const password = Joi.string().min(10).max(256);
export const timestamp = Joi.date().iso();
/** A country as every address and destination states it: the name of its pattern, read after "must be". */
export const ISO_3166_1 = 'an ISO 3166-1 alpha-2 country code of two letters, such as "GB"';

/** The path parameter of a hosted page opened by its signed link (billing portal, seller money pages). */
export const signedLinkParams = Joi.object({
  token: Joi.string().max(400).pattern(SIGNED_LINK_TOKEN, 'the token of a link the service sent').required(),
});

/**
 * Publishes `doc` in OpenAPI for a value `schema` lets through to be validated later (a bulk
 * element the service checks on its own, so one bad element does not fail the others), or checks
 * with conditions JSON Schema cannot follow (`doc` then states the same rule in shapes it can).
 */
export const documentedAs = <T extends Schema>(schema: T, doc: Schema): T => schema.meta({ documentedAs: doc.describe() }) as T;

/**
 * A named schema or null. `.allow(null)` would change the named schema itself (one name, one
 * shape); this keeps the component and says `anyOf: [$ref, null]` in OpenAPI.
 */
export const orNull = (schema: Schema) => Joi.alternatives().try(schema, Joi.valid(null));

/**
 * The two list envelopes (docs/conventions.md, "Lists"). Every paged list whose answer the spec
 * does not fix answers one of them; `test/unit/list-envelopes.test.ts` walks the OpenAPI document
 * to keep it so.
 *
 * - `offsetPage`: `{items, total, page, size}` for lists paged by `page` and `size`;
 * - `cursorPage`: `{items, nextCursor}` for streams read newest-first, paged by `cursor` and `size`.
 */
export const offsetPage = (itemSchema: Schema) =>
  Joi.object({
    items: Joi.array().items(itemSchema).required().description("This page, in the list's order."),
    total: Joi.number().integer().min(0).required().description('How many the whole list holds with these filters, across every page.'),
    page: Joi.number().integer().min(1).required().description('The page answered (1-based), as asked.'),
    size: Joi.number().integer().min(1).required().description('The page size asked for; the last page may hold fewer.'),
  });

/**
 * The offset envelope of a search whose total is counted only up to `cap` (docs/discover.md,
 * "Totals"): `total` is exact up to the cap, and `totalRelation` says whether it is exact (`eq`)
 * or a lower bound (`gte`, with `total` = the cap), as search engines report `hits.total.relation`.
 */
export const cappedOffsetPage = (itemSchema: Schema, cap: number) =>
  offsetPage(itemSchema).keys({
    total: Joi.number()
      .integer()
      .min(0)
      .max(cap)
      .required()
      .description(
        `How many items match, across every page: exact up to ${cap.toLocaleString('en-GB')}; beyond that ${cap} with \`totalRelation\` \`gte\`.`,
      ),
    totalRelation: Joi.string()
      .valid('eq', 'gte')
      .required()
      .description(`\`eq\`: \`total\` is exact. \`gte\`: at least \`total\` (${cap}) items match; counting stops there.`),
  });

export const cursorPage = (itemSchema: Schema) =>
  Joi.object({
    items: Joi.array().items(itemSchema).required().description('This page, newest first.'),
    nextCursor: Joi.string().allow(null).required().description('Pass as `cursor` to read the next page; null on the last page.'),
  });

/** Cursor paging of the cursor envelope's lists: `cursor` from the previous page's `nextCursor`. */
export const cursorQuery = Joi.object({
  cursor: Joi.string().uuid().description('Where to continue: the cursor the previous page answered; absent for the first page.'),
  size: Joi.number().integer().min(1).max(50).default(20),
});

/** The upper end of a `createdFrom`–`createdTo` filter: after `createdFrom` when both are given. */
export const createdBefore = documentedAs(
  Joi.when('createdFrom', { is: Joi.exist(), then: timestamp.greater(Joi.ref('createdFrom')), otherwise: timestamp }),
  timestamp.description('Created before (ISO 8601); after `createdFrom` when both are given.'),
).description('Created before (ISO 8601); after `createdFrom` when both are given.');

export const userView = Joi.object({
  id: Joi.string().required(),
  email: Joi.string().required(),
  username: Joi.string().required(),
  createdAt: timestamp.required(),
}).meta({ component: 'User' });

/** Response schemas of the spec's shared resources (validated outside production). */
export const userSummary = Joi.object({
  id: Joi.string().required(),
  username: Joi.string().required(),
  reviews: Joi.number().integer().required(),
  rating: Joi.number().required(),
  score: Joi.number().required(),
  sales: Joi.number().integer().required(),
  purchases: Joi.number().integer().required(),
  joined: timestamp.required(),
  avatar: Joi.string().allow(null).required(),
  cover: Joi.string().allow(null).required(),
  profile: Joi.string().allow(null).required(),
}).meta({ component: 'UserSummary' });

/** A listing's variants as answered: each a map of name to a string, number, boolean or null (see ListingInput). */
export const variantsView = Joi.array().items(
  Joi.object().pattern(Joi.string(), Joi.alternatives(Joi.string().allow(''), Joi.number(), Joi.boolean()).allow(null)),
);

/** An amount in integer pence. */
export const pence = Joi.number().integer().min(0);

/** A refund on the order (an accepted REFUND outcome, a resolved RETURN, its cancellation) or a replacement sent (docs/money.md). */
export const adjustment = Joi.object({
  id: Joi.string().required(),
  orderId: Joi.string().required(),
  caseId: Joi.string().allow(null).required(),
  reason: Joi.string().valid('CASE', 'CANCELLATION').required(),
  type: Joi.string().valid('REFUND', 'REPLACEMENT').required(),
  kind: Joi.string().valid('FULL', 'PARTIAL', 'DELIVERY').required(),
  amount: pence.required(),
  currency: Joi.string().length(3).required(),
  refundId: Joi.string().allow(null).required(),
  createdAt: Joi.date().iso().required(),
});

/**
 * A seller share released to available (TRANSFER), taken back for a refund (REVERSAL), or taken
 * from available to repay a refund loss the platform covered on the order (RECOVERY); docs/money.md.
 */
export const transfer = Joi.object({
  id: Joi.string().required(),
  orderId: Joi.string().required(),
  type: Joi.string().valid('TRANSFER', 'REVERSAL', 'RECOVERY').required(),
  status: Joi.string().valid('PENDING', 'COMPLETED').required(),
  amount: pence.required(),
  currency: Joi.string().length(3).required(),
  availableOn: Joi.date().iso().required(),
  createdAt: Joi.date().iso().required(),
  updatedAt: Joi.date().iso().required(),
});

export const item = Joi.object({
  urn: Joi.string().required(),
  slug: Joi.string().required(),
  type: Joi.string().required(),
  game: Joi.string().required(),
  title: Joi.string().required(),
  name: Joi.string().required(),
  rarity: Joi.string().allow('').required(),
  number: Joi.string().allow('').required(),
  description: Joi.string().allow('').required(),
  set: Joi.object({
    name: Joi.string().required(),
    urn: Joi.string().required(),
    counts: Joi.object({ printed: Joi.number().integer().allow(null), total: Joi.number().integer().allow(null) }),
    references: Joi.array().items(Joi.string()),
    size: Joi.number().integer().allow(null),
    symbol: Joi.object({ url: Joi.string().allow(null) }),
    released: Joi.string().allow(null),
  }).required(),
  series: Joi.object({ name: Joi.string().required(), urn: Joi.string().required() }).required(),
  images: Joi.array()
    .items(Joi.object({ urn: Joi.string(), orientation: Joi.string(), url: Joi.string(), illustrator: Joi.string().allow('') }))
    .required(),
  alternatives: Joi.array().items(Joi.string()).required(),
  metadata: Joi.array()
    .items(Joi.object({ name: Joi.string(), value: Joi.string().allow(''), detail: Joi.array().items(Joi.string().allow('')) }))
    .required(),
  price: pence.allow(null).required(),
  available: Joi.number().integer().min(0).required(),
  quantity: Joi.number().integer().min(0).required(),
  min: Joi.object({ price: pence.allow(null) }).required(),
  max: Joi.object({ price: pence.allow(null) }).required(),
}).meta({ component: 'Item' });

export const listing = Joi.object({
  id: Joi.string().required(),
  sellerId: Joi.string().required(),
  condition: Joi.string().required(),
  price: pence.required(),
  language: Joi.string().required(),
  createdAt: timestamp.required(),
  updatedAt: timestamp.required(),
  item: orNull(item).required(),
  seller: orNull(userSummary).required(),
  locked: Joi.boolean().required(),
  valid: Joi.boolean().required(),
  hidden: Joi.boolean().required(),
  quantity: Joi.number().integer().min(0).required(),
  available: Joi.number().integer().min(0).required(),
  variants: variantsView.required(),
  comment: Joi.string().allow('').required(),
  gradingProvider: Joi.string().allow(null).required(),
  gradingScore: Joi.string().allow(null).required(),
  gradingNumber: Joi.string().allow(null).required(),
  attachments: Joi.array()
    .items(Joi.object({ id: Joi.string(), imageId: Joi.string(), url: Joi.string() }))
    .required(),
  offers: Joi.object({
    enabled: Joi.boolean().required(),
    autoAcceptAt: pence.allow(null).description("The seller's own view only."),
    autoDeclineBelow: pence.allow(null).description("The seller's own view only."),
  })
    .required()
    .meta({ component: 'ListingOffers' }),
  notes: Joi.string().allow(null),
  reference: Joi.string().allow(null),
}).meta({ component: 'Listing' });

/** Completed sales of one price guide window (docs/price-guide.md). */
const priceWindow = Joi.object({
  averagePrice: pence.allow(null).required().description('Unit-weighted average sale price, rounded half up; null without sales.'),
  sold: Joi.number().integer().min(0).required().description('Units sold.'),
}).meta({ component: 'PriceWindow' });

/** The price guide of one item and condition group (docs/price-guide.md). */
export const priceGuideEntry = Joi.object({
  group: Joi.string().valid('NEAR_MINT', 'EXCELLENT', 'PLAYED').required(),
  conditions: Joi.array().items(Joi.string()).required().description('The listing conditions the group holds, best first.'),
  lowestPrice: pence.allow(null).required().description('The cheapest live listing of the group now; null when none is for sale.'),
  trendPrice: pence
    .allow(null)
    .required()
    .description('The 7-day average shrunk toward the 30-day one when it rests on few sales; null without sales in 30 days.'),
  last1Day: priceWindow.required().description('Yesterday and today so far (UTC days).'),
  last7Days: priceWindow.required().description('The 7 UTC days before today, and today so far.'),
  last30Days: priceWindow.required().description('The 30 UTC days before today, and today so far.'),
}).meta({ component: 'PriceGuideEntry' });

/** A catalog URN (see services/catalog/urn.ts); a bad entry is named, with its value, in the error. */
export const catalogUrn = Joi.string()
  .max(URN_MAX_LENGTH)
  .pattern(URN_SHAPE)
  .message('{{#label}} must be segments of letters, digits, ".", "_", "~" or "-" joined by "/" (got "{{#value}}")')
  .pattern(NO_TRAILING_SLASH)
  .message('{{#label}} must not end with "/" (got "{{#value}}")');

const everyCatalogUrn = Joi.array().custom((urns: unknown[], helpers) => (urns.every(isCatalogUrn) ? urns : helpers.error('any.invalid')));

/**
 * `Joi.array().items(catalogUrn).min(min).max(max)` for the long lists of hot routes (a bulk
 * lookup's 200 URNs). Joi validates each element as a schema run of its own: under load that
 * cost about 0.5 ms of CPU per 200-URN request, as much as answering it (bench/results/catalog.md).
 * A list whose every element passes `isCatalogUrn` (the same rule) is accepted in one loop; any
 * other list is validated element by element, so the errors still name each bad entry.
 */
export const catalogUrnList = (min: number, max: number) => {
  const full = Joi.array().items(catalogUrn).min(min).max(max);
  return documentedAs(Joi.array().min(min).max(max).when(everyCatalogUrn, { otherwise: full }), full);
};

/** The spec's Review resource, plus the author (`reviewer`) for reviews received. */
export const review = Joi.object({
  id: Joi.string().required(),
  rating: Joi.number().integer().min(1).max(5).required(),
  revisions: Joi.number().integer().min(0).required(),
  source: Joi.object({ id: Joi.string().required(), type: Joi.string().valid('ORDER').required() }).required(),
  reviewedUser: orNull(userSummary).required(),
  reviewer: orNull(userSummary).required(),
  content: Joi.string().allow('', null).required(),
  automatic: Joi.boolean().required(),
  createdAt: timestamp.required(),
}).meta({ component: 'Review' });

/** One page of reviews (a profile's received, the caller's written or received). */
export const reviewsPage = offsetPage(review).meta({ component: 'ReviewsPage' });

const addressFields = {
  name: Joi.string().trim().min(1).max(200).required(),
  line1: Joi.string().trim().min(1).max(200).required(),
  line2: Joi.string().trim().allow('').max(200).default(''),
  city: Joi.string().trim().min(1).max(100).required(),
  state: Joi.string().trim().allow('').max(100).default(''),
  country: Joi.string()
    .trim()
    .uppercase()
    .pattern(/^[A-Z]{2}$/, ISO_3166_1)
    .required(),
};
const postalCode = Joi.string().trim().min(1).max(20);

/** The spec's seller order `purchase.deliveryAddress`, whose field names the spec fixes (`postal_code`). */
export const deliveryAddress = Joi.object({ ...addressFields, postal_code: postalCode.required() }).meta({ component: 'DeliveryAddress' });

/** A delivery address in every other answer: the Saved address's field names. */
export const address = Joi.object({ ...addressFields, postalCode: postalCode.required() }).meta({ component: 'Address' });

/**
 * A delivery address a client sends: the Saved address's field names, `postal_code` still taken
 * for the clients written to the former shape (docs/versioning.md); exactly one of the two. The
 * service receives it as stored (`DeliveryAddress`). Published as the two shapes it takes, so a
 * generated client types each.
 */
export const addressInput = documentedAs(
  Joi.object({ ...addressFields, postalCode, postal_code: postalCode })
    .xor('postalCode', 'postal_code')
    .custom(({ postalCode: camel, postal_code: snake, ...rest }: Record<string, string>) => ({ ...rest, postal_code: camel ?? snake })),
  Joi.alternatives()
    .try(
      Joi.object({ ...addressFields, postalCode: postalCode.required() }),
      Joi.object({ ...addressFields, postal_code: postalCode.required().description('The former name of `postalCode`, still accepted.') }),
    )
    .match('one')
    .meta({ component: 'AddressInput' }),
);

/** Paging and sorting of the spec's list routes (page ≥ 1, size 1–50, default 20). */
export const pagedQuery = Joi.object({
  // The largest page Joi takes (a number beyond it is not safe), published as `maximum`.
  page: Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER).default(1),
  size: Joi.number().integer().min(1).max(50).default(20),
  sort: Joi.string().valid('createdAt', 'updatedAt').default('createdAt'),
  direction: Joi.string().valid('asc', 'desc').default('desc'),
});

/** Item fields up to `available`, as embedded in an order item (spec "Item"). */
const orderItemItem = item.fork(['quantity', 'min', 'max'], (s) => s.forbidden()).meta({ component: 'OrderedItem' });

/** A case's next actions for the caller (the case machine's), and its running deadline. */
export const caseActions = Joi.array()
  .items(Joi.string().valid(...CASE_VIEW_ACTIONS))
  .required()
  .description('What the caller may do now: the actions the case workflow would accept (an operator: `close`, `remediate`).');
export const caseDeadlines = Joi.object({
  escalatesAt: timestamp.allow(null).required().description('When an OPEN or REMEDIATION case escalates automatically; null otherwise.'),
}).required();

/** Whose move an order or a case waits for and by when (docs/checkout-orders.md "Next actions"). */
export const nextActions = Joi.array()
  .items(
    Joi.object({
      party: Joi.string().valid('BUYER', 'SELLER', 'OPERATOR').required().description('Who makes the move.'),
      action: Joi.string().required().description("The action that makes it (an operator's `decide`: close or remediate)."),
      dueAt: timestamp.allow(null).required().description('By when; null when no clock runs.'),
      afterDue: Joi.string()
        .allow(null)
        .required()
        .description('What the service does by itself once `dueAt` passes; null: nothing, the date is a commitment both parties see.'),
    }).meta({ component: 'NextAction' }),
  )
  .required()
  .description('The same for every viewer: whose move it is, by when, and what happens if it is not made.');

/** A case as its parties see it: on the case routes and inside a seller's order. */
const caseOutcome = Joi.object({
  id: Joi.string().required(),
  caseId: Joi.string().required(),
  type: Joi.string()
    .valid(...OUTCOME_TYPES)
    .required(),
  party: Joi.string().valid('BUYER', 'SELLER').required(),
  status: Joi.string().valid('PENDING', 'ACCEPTED', 'REJECTED', 'SUPERSEDED').required(),
  amount: pence.required(),
  comment: Joi.string().allow('').required(),
  deliveryAddress: orNull(address).required().description('Null for the buyer on a seller outcome until it is accepted.'),
  createdAt: timestamp.required(),
  updatedAt: timestamp.required(),
}).meta({ component: 'CaseOutcome' });
export const caseAttachment = Joi.object({
  id: Joi.string().required(),
  imageId: Joi.string().required(),
  url: Joi.string().uri().required(),
  party: Joi.string().valid('BUYER', 'SELLER').required(),
  createdAt: timestamp.required(),
}).meta({ component: 'CaseAttachment' });
export const caseView = Joi.object({
  id: Joi.string().required(),
  workflowId: Joi.string().required(),
  orderId: Joi.string().required(),
  purchaseId: Joi.string().required(),
  reason: Joi.string()
    .valid(...CASE_REASONS)
    .required(),
  status: Joi.string()
    .valid(...CASE_STATUSES)
    .required(),
  comment: Joi.string().allow('').required(),
  createdAt: timestamp.required(),
  updatedAt: timestamp.required(),
  outcomes: Joi.array().items(caseOutcome).required(),
  attachments: Joi.array().items(caseAttachment).required(),
  actions: caseActions,
  nextActions,
  deadlines: caseDeadlines,
}).meta({ component: 'Case' });

/** A proof-of-postage image on a shipment: a case attachment's fields, with the spec's `hidden`. */
export const shipmentAttachment = Joi.object({
  id: Joi.string().required(),
  imageId: Joi.string().required().description('The upload the image came from.'),
  url: Joi.string().uri().required(),
  hidden: Joi.boolean().required().description('Always false: the seller and the buyer both see proof of postage.'),
  createdAt: timestamp.required(),
}).meta({ component: 'ShipmentAttachment' });

export const orderView = Joi.object({
  id: Joi.string().required(),
  sellerId: Joi.string().required(),
  purchaseId: Joi.string().required(),
  status: Joi.string()
    .valid(...ORDER_STATUSES)
    .required(),
  deliveryCharge: pence.required(),
  subtotal: pence.required(),
  total: pence.required(),
  createdAt: timestamp.required(),
  updatedAt: timestamp.required(),
  items: Joi.array()
    .items(
      Joi.object({
        id: Joi.string().required(),
        listingId: Joi.string().required(),
        orderId: Joi.string().required(),
        urn: Joi.string().required(),
        price: pence.required(),
        quantity: Joi.number().integer().min(1).required(),
        condition: Joi.string().required(),
        language: Joi.string().required(),
        createdAt: timestamp.required(),
        updatedAt: timestamp.required(),
        item: orderItemItem.allow(null).required(),
        status: Joi.string()
          .valid(...ORDER_STATUSES)
          .required(),
        variants: variantsView.required(),
        comment: Joi.string().allow('').required(),
        shipmentId: Joi.string().allow(null).required(),
      }),
    )
    .required(),
  shipments: Joi.array()
    .items(
      Joi.object({
        id: Joi.string().required(),
        orderId: Joi.string().required(),
        trackingNumber: Joi.string().required(),
        trackingStatus: Joi.string().required(),
        trackingStatusDetail: Joi.string().allow('').required(),
        trackingSource: Joi.string()
          .valid(...TRACKING_SOURCES)
          .required()
          .description(
            'Where `trackingStatus` comes from. PENDING: not asked yet. CARRIER: a connected tracking provider follows the number. ' +
              'SIMULATOR: the embedded simulator moves it (development). NOT_FOUND: the connected provider has no record of the number ' +
              '(yet, or it is mistyped; correct it with PUT …/tracking). NOT_CONNECTED: no connected carrier follows this number, so the ' +
              'status will not change by itself; the order is received when the buyer confirms it or automatically.',
          ),
        trackingUrl: Joi.string().allow('').required(),
        carrier: Joi.string().required(),
        createdAt: timestamp.required(),
        updatedAt: timestamp.required(),
        attachments: Joi.array().items(shipmentAttachment).required().description('Proof-of-postage images, oldest first.'),
      }),
    )
    .required(),
  purchase: Joi.object({ deliveryAddress: deliveryAddress.required(), user: orNull(userSummary).required() }).required(),
  cases: Joi.array().items(caseView).required(),
  adjustments: Joi.array().items(adjustment).required(),
  transfers: Joi.array()
    .items(transfer)
    .required()
    .description(
      "The seller share's release and any reversal or recovery of it (docs/money.md). Empty in the buyer's view: the seller's money is not the buyer's.",
    ),
  reviews: Joi.object().pattern(Joi.string(), Joi.number().integer().min(1).max(5)).required(),
  actions: Joi.array()
    .items(Joi.string().valid(...ORDER_ACTIONS))
    .required()
    .description('What the caller may do with the order now (from the order status table); anything else is refused.'),
  nextActions,
  cancellationRequest: Joi.object({
    status: Joi.string().valid('PENDING', 'ACCEPTED', 'DECLINED').required(),
    requestedAt: timestamp.required(),
    answeredAt: timestamp.allow(null).required().description('When the seller cancelled, declined or shipped; null while PENDING.'),
  })
    .allow(null)
    .required()
    .description("The buyer's request to cancel before shipment (asked once); null when none was made."),
  deadlines: Joi.object({
    autoReceiptAt: timestamp.allow(null).required().description('When a SHIPPED order is received automatically.'),
  }).required(),
}).meta({ component: 'Order' });

/** Order item ids and quantities named by an order action (`ship`, `dispute`). */
export const itemQuantities = Joi.array()
  .items(Joi.object({ id: Joi.string().uuid().required(), quantity: Joi.number().integer().min(1).max(10_000).required() }))
  .min(1)
  .max(200);

/** Path parameters of routes addressing one resource by its UUID id. */
export const idParams = Joi.object({ id: Joi.string().uuid().required() });
export type IdParams = { id: string };

/** An outcome a party proposes on a case (also as initial outcomes of a dispute). */
export const outcomeProposalFields = {
  type: Joi.string().valid('RETURN', 'REFUND', 'REPLACEMENT').required(),
  amount: pence.max(100_000_000).default(0).description('Pence.'),
  comment: Joi.string().allow('').max(2000).default(''),
  deliveryAddress: orNull(addressInput).description('Where a return or replacement goes; or `addressId`, not both.'),
  addressId: Joi.string()
    .uuid()
    .when('deliveryAddress', { is: Joi.exist(), then: Joi.forbidden() })
    .description("One of the caller's saved addresses as `deliveryAddress`."),
};
export const caseOutcomes = Joi.array().items(Joi.object(outcomeProposalFields)).max(3).default([]);

/** RFC 6749 §5.2 error body of the OAuth endpoints (token, revocation, introspection). */
export const oauthError = Joi.object({
  error: Joi.string().required().description('RFC 6749 error code, e.g. `invalid_grant`, `invalid_client`, `invalid_request`.'),
  error_description: Joi.string().description('Prose for the developer; not for branching on.'),
}).meta({ component: 'OAuthError' });

/**
 * RFC 9457 problem details (docs/conventions.md, docs/errors.md). Every 4xx/5xx in the OpenAPI
 * document references one of these; routes whose problems carry extension members name the
 * matching schema on that status.
 */
export const problemSchema = Joi.object({
  type: Joi.string().required().description('`/problems/{code}`; the codes are listed in docs/errors.md.').example('/problems/not-found'),
  title: Joi.string().required().example('Not Found'),
  status: Joi.number().integer().min(400).max(599).required().example(404),
  detail: Joi.string().description('Prose for humans; do not branch on it.'),
  instance: Joi.string().description('The request path.'),
  requestId: Joi.string().description('Also in `X-Request-Id` and the server log line of the request.'),
})
  .unknown(true)
  .meta({ component: 'Problem' });

export const validationProblem = problemSchema
  .keys({
    errors: Joi.array()
      .items(
        Joi.object({
          in: Joi.string().valid('body', 'query', 'params', 'headers').required(),
          field: Joi.string().required().description('Dotted path, e.g. `items.3.quantity`.'),
          message: Joi.string().required(),
        }).meta({ component: 'FieldError' }),
      )
      .max(20)
      .description('The failing fields (`validation-failed`, `invalid-items`), at most 20.'),
    errorCount: Joi.number().integer().description('How many fields failed, when more than the 20 listed in `errors`.'),
  })
  .meta({ component: 'ValidationProblem' })
  .description('`validation-failed` (and `malformed-body`, `invalid-items`…): `errors` names each failing field.');

export const listingsUnavailableProblem = problemSchema
  .keys({
    listingIds: Joi.array()
      .items(Joi.string())
      .required()
      .description('Every listing that caused the refusal; empty for `basket-empty` and `delivery-address-required`.'),
  })
  .meta({ component: 'ListingsUnavailableProblem' })
  .description('Checkout refusals: `listings-unavailable`, `basket-empty`, `delivery-address-required`.');

export const moderationProblem = problemSchema
  .keys({
    reasons: Joi.array()
      .items(Joi.string())
      .min(1)
      .description('With `image-rejected` and other moderation refusals: why moderation refused the content.'),
  })
  .meta({ component: 'ModerationProblem' })
  .description('A refusal that may come from moderation: with `image-rejected`, `reasons` lists why.');
