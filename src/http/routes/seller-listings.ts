import Joi from '../../joi';
import { listingInput } from '../../services/listings/listing-input';
import { MAX_ATTACHMENTS, MAX_BULK_LISTINGS } from '../../services/listings/seller-listings';
import {
  BOOLEAN_FACETS,
  FACET_KEYS,
  FILTER_FIELDS,
  FILTER_OPS,
  PRICE_BUCKETS,
  QUANTITY_BUCKETS,
} from '../../services/listings/seller-search-fields';
import { defineRoute, JsonBytes } from '../route';
import { documentedAs, listing, timestamp, idParams } from '../schemas';
import type { SellerListings } from '../../services/listings/seller-listings';

const attachment = Joi.object({ id: Joi.string().required(), imageId: Joi.string().required(), url: Joi.string().required() }).meta({
  component: 'ListingAttachment',
});

const NUMBER_FIELDS = Object.entries(FILTER_FIELDS)
  .filter(([, f]) => f.kind === 'number')
  .map(([k]) => k);
const DATE_FIELDS = Object.entries(FILTER_FIELDS)
  .filter(([, f]) => f.kind === 'date')
  .map(([k]) => k);

const STRING_FIELDS = Object.entries(FILTER_FIELDS)
  .filter(([, f]) => f.kind === 'string')
  .map(([k]) => k);
const SCALAR_OPS = FILTER_OPS.filter((op) => op !== 'in');
const inValues = Joi.array().items(Joi.string().max(300), Joi.number()).min(1).max(100);
const textValue = Joi.string().max(300);

/** One condition: `in` takes a list; any other op one value of the field's kind. */
const filter = documentedAs(
  Joi.object({
    field: Joi.string()
      .valid(...Object.keys(FILTER_FIELDS))
      .required(),
    op: Joi.string()
      .valid(...FILTER_OPS)
      .required(),
    value: Joi.alternatives()
      .conditional('op', {
        is: 'in',
        then: inValues,
        otherwise: Joi.alternatives().conditional('field', {
          switch: [
            { is: Joi.valid(...NUMBER_FIELDS), then: Joi.number().integer() },
            { is: Joi.valid(...DATE_FIELDS), then: timestamp },
          ],
          otherwise: textValue,
        }),
      })
      .required(),
  }),
  // The same rule as one shape per (op, field kind), which JSON Schema can state; validation keeps
  // the conditional form above for its messages, which name the field at fault.
  Joi.alternatives().try(
    ...(
      [
        [Object.keys(FILTER_FIELDS), ['in'], inValues],
        [NUMBER_FIELDS, SCALAR_OPS, Joi.number().integer()],
        [DATE_FIELDS, SCALAR_OPS, timestamp],
        [STRING_FIELDS, SCALAR_OPS, textValue],
      ] as const
    ).map(([fields, ops, value]) =>
      Joi.object({
        field: Joi.string()
          .valid(...fields)
          .required(),
        op: Joi.string()
          .valid(...ops)
          .required(),
        value: value.required(),
      }),
    ),
  ),
);

const facetSelection = Joi.object(
  Object.fromEntries(
    FACET_KEYS.map((k) => [
      k,
      Joi.array()
        .items(BOOLEAN_FACETS.includes(k) ? Joi.boolean() : Joi.string().max(200))
        .max(50),
    ]),
  ),
);

const searchBody = Joi.object({
  query: Joi.string().trim().max(200).allow(''),
  filters: Joi.array().items(filter).max(20).default([]),
  facets: facetSelection.default({}),
  from: Joi.number().integer().min(0).max(10_000).default(0),
  size: Joi.number().integer().min(1).max(100).default(25),
}).example({
  query: 'charizard',
  filters: [
    { field: 'price', op: 'gte', value: 1000 },
    { field: 'condition', op: 'in', value: ['MINT', 'NEAR_MINT'] },
  ],
  facets: { Hidden: [false] },
  from: 0,
  size: 25,
});

const facetCounts = Joi.object(
  Object.fromEntries(
    FACET_KEYS.map((k) => [
      k,
      Joi.array()
        .items(Joi.object({ value: Joi.alternatives(Joi.string(), Joi.boolean()).required(), count: Joi.number().integer().required() }))
        .required(),
    ]),
  ),
).meta({ component: 'FacetCounts' });

const bulkResult = Joi.object({
  index: Joi.number().integer().required(),
  status: Joi.string().valid('created', 'invalid').required(),
  listing,
  errors: Joi.array().items(Joi.object({ in: Joi.string(), field: Joi.string(), message: Joi.string() })),
}).meta({ component: 'BulkListingResult' });

const INVALID_ELEMENT = 'Any other object: nothing is created for it; its result is `status: invalid` with its field errors.';

/** The services these routes use (their feature module's, src/modules). */
export interface SellerListingRouteServices {
  listings: SellerListings;
}

export const sellerListingRoutes = (s: SellerListingRouteServices) => [
  defineRoute<'createListing', 'seller'>({
    operationId: 'createListing',
    method: 'post',
    path: '/seller/listings',
    tag: 'Seller listings',
    summary: 'Create a listing',
    description:
      'Emits `LISTING_CREATED`. The listing is stored even when incomplete; `valid` says whether buyers can see it (see docs/seller-listings.md).',
    auth: 'seller',
    request: { body: listingInput },
    responses: { 201: { description: 'The new listing.', schema: listing } },
    handler: async ({ principal, body }) => ({ status: 201, body: await s.listings.create(principal.userId, body) }),
  }),

  defineRoute<'createListingsBulk', 'seller'>({
    operationId: 'createListingsBulk',
    method: 'post',
    path: '/seller/listings/bulk',
    tag: 'Seller listings',
    summary: `Create up to ${MAX_BULK_LISTINGS} listings in one request, with a result per listing`,
    description:
      'Each element has the body of `POST /seller/listings` and is validated on its own: the well-formed ones are created ' +
      'together (one `LISTING_CREATED` each), the others come back with `status: invalid` and their field errors.',
    auth: 'seller',
    request: {
      // Any object is taken and answered in `results`, so the document says so beside the
      // shape a listing must have: a request is not refused for one bad element.
      body: Joi.object({
        listings: Joi.array()
          .items(documentedAs(Joi.object(), Joi.alternatives(listingInput, Joi.object().description(INVALID_ELEMENT))))
          .min(1)
          .max(MAX_BULK_LISTINGS)
          .required(),
      }).example({
        listings: [
          { urn: 'pokemon/base/base1/4', condition: 'NEAR_MINT', language: 'en', price: 24999, quantity: 1 },
          {
            urn: 'pokemon/base/base1/2',
            condition: 'EXCELLENT',
            language: 'en',
            price: 8950,
            quantity: 2,
            gradingProvider: 'PSA',
            gradingScore: '8',
            gradingNumber: '48213377',
            reference: 'stock-sync:1042',
          },
        ],
      }),
    },
    responses: {
      200: {
        description: 'One result per element, in request order.',
        schema: Joi.object({
          created: Joi.number().integer().required(),
          invalid: Joi.number().integer().required(),
          results: Joi.array().items(bulkResult).required(),
        }),
      },
    },
    handler: async ({ principal, body }) => {
      const results = await s.listings.createMany(principal.userId, body.listings);
      const created = results.filter((r) => r.status === 'created').length;
      return { status: 200, body: { created, invalid: results.length - created, results } };
    },
  }),

  defineRoute<'searchSellerListings', 'seller'>({
    operationId: 'searchSellerListings',
    method: 'post',
    path: '/seller/listings/search',
    tag: 'Seller listings',
    summary: "Search the caller's listings, with facet counts",
    description:
      "Only the caller's listings can match: the seller scope is applied from the credential and no facet or filter can change it. " +
      `\`facets\` selects values per key (${FACET_KEYS.join(', ')}); Valid and Hidden take booleans, Price takes ${PRICE_BUCKETS.join(', ')} (pence), ` +
      `Quantity takes ${QUANTITY_BUCKETS.join(', ')}, Availability takes "In Stock" or "Out of Stock". \`filters\` are {field, op, value} conditions.`,
    auth: 'seller',
    request: { body: searchBody },
    responses: {
      200: {
        description: 'Total, a page of hits (newest first) and counts for all fourteen facets.',
        schema: Joi.object({
          total: Joi.number().integer().required(),
          hits: Joi.array().items(listing).required(),
          facets: facetCounts.required(),
        }),
      },
    },
    handler: async ({ principal, body }) => ({ status: 200, body: new JsonBytes(await s.listings.search(principal.userId, body)) }),
  }),

  defineRoute<'sellerListingsOfItem', 'seller'>({
    operationId: 'sellerListingsOfItem',
    method: 'get',
    path: '/seller/listings/items',
    tag: 'Seller listings',
    summary: "The caller's listings of one item that have stock",
    description: 'Only listings with `quantity > 0`; `available` mirrors `quantity`; `locked` is true while checkouts hold units.',
    auth: 'seller',
    request: { query: Joi.object({ urn: Joi.string().min(1).max(300).required() }) },
    responses: { 200: { description: 'Listings, cheapest first; empty when none.', schema: Joi.array().items(listing) } },
    handler: async ({ principal, query }) => ({ status: 200, body: await s.listings.ofItem(principal.userId, query.urn) }),
  }),

  defineRoute<'getSellerListing', 'seller'>({
    operationId: 'getSellerListing',
    method: 'get',
    path: '/seller/listings/{id}',
    tag: 'Seller listings',
    summary: "One of the caller's listings, with its private fields",
    auth: 'seller',
    request: { params: idParams },
    responses: { 200: { description: 'The listing.', schema: listing }, 404: { description: "No such listing of the caller's." } },
    handler: async ({ principal, params }) => ({ status: 200, body: await s.listings.get(principal.userId, params.id) }),
  }),

  defineRoute<'updateListing', 'seller'>({
    operationId: 'updateListing',
    method: 'put',
    path: '/seller/listings/{id}',
    tag: 'Seller listings',
    summary: "Replace a listing's fields",
    description: 'Same body as creation. Emits `LISTING_UPDATED`. A quantity below the units open checkouts hold is a 409.',
    auth: 'seller',
    request: { params: idParams, body: listingInput },
    responses: {
      200: { description: 'The updated listing.', schema: listing },
      404: { description: "No such listing of the caller's." },
      409: { description: '`quantity-below-reserved`: checkouts hold more units than the new quantity.' },
    },
    handler: async ({ principal, params, body }) => ({ status: 200, body: await s.listings.update(principal.userId, params.id, body) }),
  }),

  defineRoute<'deleteListing', 'seller'>({
    operationId: 'deleteListing',
    method: 'delete',
    path: '/seller/listings/{id}',
    tag: 'Seller listings',
    summary: 'Delete a listing',
    description: 'Emits `LISTING_DELETED`. Orders keep referring to it (soft delete).',
    auth: 'seller',
    request: { params: idParams },
    responses: {
      204: { description: 'Deleted.' },
      404: { description: "No such listing of the caller's." },
      409: { description: '`listing-locked`: open checkouts hold units of it.' },
    },
    handler: async ({ principal, params }) => {
      await s.listings.delete(principal.userId, params.id);
      return { status: 204 };
    },
  }),

  defineRoute<'attachListingImage', 'seller'>({
    operationId: 'attachListingImage',
    method: 'post',
    path: '/seller/listings/{id}/attachments',
    tag: 'Seller listings',
    summary: 'Attach a finished upload to a listing (step 2 of a direct upload)',
    description: `\`imageId\` is the id of a READY upload of the caller's (see \`POST /uploads\`). At most ${MAX_ATTACHMENTS} images per listing.`,
    auth: 'seller',
    request: {
      params: idParams,
      body: Joi.object({ imageId: Joi.string().uuid().required() }).example({ imageId: '0191f3c2-7a4e-7b21-9c3d-5e6f7a8b9c0d' }),
    },
    responses: {
      201: { description: 'The attachment, with its public URL.', schema: attachment },
      400: { description: "`upload-not-ready`: the upload is unknown, not the caller's, or unfinished." },
      404: { description: "No such listing of the caller's." },
      409: { description: '`attachment-limit-reached`.' },
    },
    handler: async ({ principal, params, body }) => ({
      status: 201,
      body: await s.listings.attach(principal.userId, params.id, body.imageId),
    }),
  }),
];
