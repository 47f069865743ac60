import Joi from '../../joi';
import { MAX_PRICE } from '../../services/listings/listing-input';
import { defineRoute, JsonBytes } from '../route';
import { catalogUrn, listing, orNull, priceGuideEntry } from '../schemas';
import type { ListingSearch } from '../../services/search/listing-search';
import { SEARCH_CACHE } from './discover-common';

const pence = Joi.number().integer().min(0);
const values = Joi.array().items(Joi.string().max(50)).max(20);

/** The criteria of a listing search: the body of `POST /listings/item`, and of a saved listing search. */
export const listingSearchBody = Joi.object({
  urn: catalogUrn,
  slug: Joi.string().max(200),
  filters: Joi.object({
    condition: values.description('Any of these conditions, e.g. `NEAR_MINT`.'),
    language: values.description('Any of these languages, e.g. `en`.'),
    // No listing costs more than MAX_PRICE; a larger bound would overflow the integer column.
    priceMin: pence.max(MAX_PRICE),
    priceMax: pence
      .max(MAX_PRICE)
      .when('priceMin', { is: Joi.exist(), then: Joi.number().min(Joi.ref('priceMin')) })
      .description('At least `priceMin` when both are given.'),
    graded: Joi.boolean().description('true: graded only; false: ungraded only.'),
    sellerId: Joi.string().guid(),
  }).default({}),
  sort: Joi.string().valid('price', '-price', 'newest').default('price').description('`price` cheapest first, `-price` dearest first.'),
  from: Joi.number().integer().min(0).max(10_000).default(0).description('Offset of the first hit.'),
  size: Joi.number().integer().min(1).max(50).default(20),
})
  .xor('urn', 'slug')
  .messages({ 'object.missing': 'Give the item as "urn" or "slug"', 'object.xor': 'Give either "urn" or "slug", not both' })
  .example({ urn: 'pokemon/base/base1/4', filters: { condition: ['NEAR_MINT'], priceMax: 5000 }, sort: 'price', size: 20 })
  .meta({ component: 'ListingSearch' });

/** A hit: the listing, and its item's price guide in the listing's condition group. */
const listingHit = listing
  .keys({
    priceGuide: orNull(priceGuideEntry)
      .required()
      .description("The price guide of the listing's item in the listing's condition group (docs/price-guide.md)."),
  })
  .meta({ component: 'ListingHit' });

/** What a listing search answers. */
export const listingSearchPage = Joi.object({
  total: Joi.number().integer().min(0).required(),
  hits: Joi.array().items(listingHit).required(),
});

/** The services these routes use (their feature module's, src/modules). */
export interface ListingSearchRouteServices {
  listingSearch: ListingSearch;
}

export const listingSearchRoutes = (s: ListingSearchRouteServices) => [
  defineRoute<'searchItemListings', 'public'>({
    operationId: 'searchItemListings',
    method: 'post',
    path: '/listings/item',
    tag: 'Discover',
    summary: 'Live listings of one item, with filters, sort and paging',
    description:
      'Only listings buyers can buy now: available stock, not hidden, valid, from active sellers not on vacation. ' +
      'An item that does not resolve gives `{ total: 0, hits: [] }`, not an error. Hits never carry `notes` or `reference`. ' +
      "Each hit carries the price guide of the item in the listing's condition group (`GET /search/price-guide`).",
    auth: 'public',
    request: { body: listingSearchBody },
    responses: {
      200: {
        description: 'The total and one page of hits.',
        schema: listingSearchPage,
      },
    },
    handler: async ({ body }) => ({
      status: 200,
      body: new JsonBytes(await s.listingSearch.search(body)),
      headers: { 'Cache-Control': SEARCH_CACHE },
    }),
  }),
];
