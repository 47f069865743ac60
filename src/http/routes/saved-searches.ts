import Joi from '../../joi';
import { MAX_SAVED_SEARCHES, type SavedSearches, type SavedSearchInput } from '../../services/alerts/saved-searches';
import { defineRoute, JsonBytes } from '../route';
import { idParams, orNull, timestamp } from '../schemas';
import { catalogSearchQuery, searchPage } from './discover';
import { listingSearchBody, listingSearchPage } from './listing-search';

/** The services these routes use (the alerts module's, src/modules/alerts.ts). */
export interface SavedSearchRouteServices {
  savedSearches: SavedSearches;
}

const TAG = 'Saved searches';
const NOT_FOUND = { description: "No such saved search, or not the caller's." };

const savedSearch = Joi.object({
  id: Joi.string().required(),
  name: Joi.string().required(),
  catalog: orNull(catalogSearchQuery)
    .required()
    .description('The criteria of a catalog search (`GET /search`); null for a listing search.'),
  listings: orNull(listingSearchBody)
    .required()
    .description('The criteria of a listing search (`POST /listings/item`); null for a catalog search.'),
  createdAt: timestamp.required(),
}).meta({ component: 'SavedSearch' });

// The criteria are those routes' own schemas: a saved search takes exactly what they take.
const savedSearchInput = Joi.object<SavedSearchInput>({
  name: Joi.string().trim().min(1).max(100).required(),
  catalog: catalogSearchQuery.description('The query parameters of `GET /search`, as an object.'),
  listings: listingSearchBody.description('The body of `POST /listings/item`.'),
})
  .xor('catalog', 'listings')
  .example({
    name: 'Cheap near-mint Charizard',
    listings: { urn: 'pokemon/base/base1/4', filters: { condition: ['NEAR_MINT'], priceMax: 5000 } },
  })
  .example({ name: 'Base Set holos', catalog: { q: 'holo', set: 'pokemon/base/base1', sort: 'price' } });

export const savedSearchRoutes = (s: SavedSearchRouteServices) => [
  defineRoute<'listSavedSearches', 'user'>({
    operationId: 'listSavedSearches',
    method: 'get',
    path: '/user/saved-searches',
    tag: TAG,
    summary: "The caller's saved searches, oldest first",
    description: `At most ${MAX_SAVED_SEARCHES}, so one answer holds them all.`,
    auth: 'user',
    responses: { 200: { description: 'The saved searches.', schema: Joi.object({ searches: Joi.array().items(savedSearch).required() }) } },
    handler: async ({ principal }) => ({ status: 200, body: { searches: await s.savedSearches.list(principal.userId) } }),
  }),

  defineRoute<'createSavedSearch', 'user'>({
    operationId: 'createSavedSearch',
    method: 'post',
    path: '/user/saved-searches',
    tag: TAG,
    summary: 'Save a catalog search or a listing search under a name',
    description:
      'Exactly one of `catalog` (the parameters of `GET /search`) and `listings` (the body of `POST /listings/item`), validated as those routes validate them; ' +
      `the saved criteria carry their defaults. At most ${MAX_SAVED_SEARCHES} per user.`,
    auth: 'user',
    request: { body: savedSearchInput },
    responses: {
      201: { description: 'The saved search.', schema: savedSearch },
      409: { description: '`saved-search-limit-reached`.' },
    },
    handler: async ({ principal, body }) => ({ status: 201, body: await s.savedSearches.create(principal.userId, body) }),
  }),

  defineRoute<'getSavedSearch', 'user'>({
    operationId: 'getSavedSearch',
    method: 'get',
    path: '/user/saved-searches/{id}',
    tag: TAG,
    summary: 'One of the caller’s saved searches',
    auth: 'user',
    request: { params: idParams },
    responses: { 200: { description: 'The saved search.', schema: savedSearch }, 404: NOT_FOUND },
    handler: async ({ principal, params }) => ({ status: 200, body: await s.savedSearches.get(principal.userId, params.id) }),
  }),

  defineRoute<'deleteSavedSearch', 'user'>({
    operationId: 'deleteSavedSearch',
    method: 'delete',
    path: '/user/saved-searches/{id}',
    tag: TAG,
    summary: 'Delete a saved search',
    auth: 'user',
    request: { params: idParams },
    responses: { 204: { description: 'Deleted.' }, 404: NOT_FOUND },
    handler: async ({ principal, params }) => {
      await s.savedSearches.remove(principal.userId, params.id);
      return { status: 204 };
    },
  }),

  defineRoute<'runSavedSearch', 'user'>({
    operationId: 'runSavedSearch',
    method: 'get',
    path: '/user/saved-searches/{id}/results',
    tag: TAG,
    summary: 'Run a saved search now',
    description:
      'Answers what the saved search answers now: a catalog search gives the page of `GET /search`, a listing search the hits of `POST /listings/item`.',
    auth: 'user',
    request: { params: idParams },
    responses: {
      200: { description: 'The search’s answer.', schema: Joi.alternatives().try(searchPage, listingSearchPage) },
      404: NOT_FOUND,
    },
    handler: async ({ principal, params }) => ({
      status: 200,
      body: new JsonBytes(await s.savedSearches.run(principal.userId, params.id)),
      headers: { 'Cache-Control': 'no-store' },
    }),
  }),
];
