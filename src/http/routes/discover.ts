import Joi from '../../joi';
import { TOTAL_CAP } from '../../services/search/catalog-search';
import { defineRoute, JsonBytes } from '../route';
import { cappedOffsetPage, catalogUrn, catalogUrnList, item } from '../schemas';
import type { BulkLookup } from '../../services/search/bulk-lookup';
import type { CatalogSearch } from '../../services/search/catalog-search';
import type { PricePoint } from '../../services/catalog/price-history';
import { CATALOG_CACHE, MAX_BULK_URNS, pageQuery, SEARCH_CACHE } from './discover-common';

/** The criteria of a catalog search: the query of `GET /search`, and of a saved catalog search. */
export const catalogSearchQuery = Joi.object({
  q: Joi.string().trim().min(1).max(200),
  game: catalogUrn.description('Game URN, e.g. `pokemon`.'),
  series: catalogUrn.description('Series URN, e.g. `pokemon/base`.'),
  set: catalogUrn.description('Set URN, e.g. `pokemon/base/base1`.'),
  rarity: Joi.string().max(100).description('Exact rarity, case-insensitive, e.g. `rare holo`.'),
  sort: Joi.string().valid('relevance', 'name', 'price').default('relevance'),
}).concat(pageQuery);

export const searchPage = cappedOffsetPage(item, TOTAL_CAP).meta({ component: 'SearchPage' });

const pricePoint = Joi.object({
  date: Joi.string().required(),
  min: Joi.number().integer().required(),
  median: Joi.number().integer().required(),
  max: Joi.number().integer().required(),
  count: Joi.number().integer().required(),
}).meta({ component: 'PricePoint' });

/** The services these routes use (their feature module's, src/modules). */
export interface DiscoverRouteServices {
  bulkLookup: BulkLookup;
  catalogSearch: CatalogSearch;
  priceHistory: (urn: string, days: number) => Promise<PricePoint[]>;
}

export const discoverRoutes = (s: DiscoverRouteServices) => [
  defineRoute<'searchCatalog', 'public'>({
    operationId: 'searchCatalog',
    method: 'get',
    path: '/search',
    tag: 'Discover',
    summary: 'Full-text, typo-tolerant catalog search with filters and paging',
    description:
      'Matches `q` by full text (name, title incl. set name, rarity, number) or by trigram word similarity ' +
      'to the title, so misspellings such as "charzard" still find Charizard. See docs/discover.md for ranking.',
    auth: 'public',
    request: { query: catalogSearchQuery },
    responses: { 200: { description: 'One page of items.', schema: searchPage } },
    handler: async ({ query }) => ({
      status: 200,
      body: new JsonBytes(await s.catalogSearch.search(query)),
      headers: { 'Cache-Control': SEARCH_CACHE },
    }),
  }),

  defineRoute<'bulkLookupItems', 'public'>({
    operationId: 'bulkLookupItems',
    method: 'post',
    path: '/search/lookup/bulk',
    tag: 'Discover',
    summary: 'Items for 1 to 200 URNs, in request order',
    description:
      "The body is the spec's array<Item>: found items in the order first asked for (a repeated URN is answered once). " +
      'URNs not in the catalog are named in the `X-Unprocessed-Urns` header (comma-separated: URNs never contain commas; absent when all were found) ' +
      'and counted in `X-Unprocessed-Count`.',
    auth: 'public',
    request: {
      body: Joi.object({ urns: catalogUrnList(1, MAX_BULK_URNS).required() }).example({
        urns: ['pokemon/base/base1/4', 'pokemon/base/base1/2', 'pokemon/base/base1/58'],
      }),
    },
    responses: { 200: { description: 'Found items, in request order.', schema: Joi.array().items(item) } },
    handler: async ({ body }) => {
      const { json, unprocessed } = await s.bulkLookup.lookup(body.urns);
      return {
        status: 200,
        body: new JsonBytes(json),
        headers: {
          'Cache-Control': SEARCH_CACHE,
          'X-Unprocessed-Count': String(unprocessed.length),
          ...(unprocessed.length ? { 'X-Unprocessed-Urns': unprocessed.join(',') } : {}),
        },
      };
    },
  }),

  defineRoute<'itemPriceHistory', 'public'>({
    operationId: 'itemPriceHistory',
    method: 'get',
    path: '/search/price-history',
    tag: 'Discover',
    summary: "Daily min, median, max and units sold of an item's completed sales",
    auth: 'public',
    request: {
      query: Joi.object({
        urn: catalogUrn.required(),
        days: Joi.number().integer().min(1).max(365).default(90).description('How many days back from now.'),
      }),
    },
    responses: {
      200: {
        description: 'Daily points, oldest first; days without sales are absent.',
        schema: Joi.object({ urn: Joi.string().required(), points: Joi.array().items(pricePoint).required() }),
      },
      404: { description: 'No such item.' },
    },
    handler: async ({ query }) => ({
      status: 200,
      body: { urn: query.urn, points: await s.priceHistory(query.urn, query.days) },
      headers: { 'Cache-Control': CATALOG_CACHE },
    }),
  }),
];
