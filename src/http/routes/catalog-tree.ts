import Joi from '../../joi';
import { defineRoute } from '../route';
import { item, offsetPage } from '../schemas';
import type { CatalogHierarchy } from '../../services/catalog/hierarchy';
import { CATALOG_CACHE, pageQuery, SEARCH_CACHE } from './discover-common';

/** One URN segment as a path parameter; the URN is the segments joined with `/`. */
const segment = Joi.string().max(100).required();

const ref = Joi.object({ urn: Joi.string().required(), name: Joi.string().required() }).meta({ component: 'CatalogRef' });
const node = ref
  .keys({
    counts: Joi.object({
      series: Joi.number().integer(),
      sets: Joi.number().integer(),
      items: Joi.number().integer().required(),
    }).required(),
  })
  .meta({ component: 'CatalogNode' });
const setNode = node
  .keys({
    released: Joi.string().allow(null).required(),
    size: Joi.number().integer().allow(null).required(),
    symbol: Joi.object({ url: Joi.string().allow(null) }).required(),
  })
  .meta({ component: 'CatalogSetNode' });

const cached = <T>(body: T, policy = CATALOG_CACHE) => ({ status: 200 as const, body, headers: { 'Cache-Control': policy } });

/** The services these routes use (their feature module's, src/modules). */
export interface CatalogTreeRouteServices {
  catalogTree: CatalogHierarchy;
}

/**
 * Hierarchy navigation: `/search/catalog` lists games; each deeper path mirrors the URN
 * (`/search/catalog/pokemon/base/base1` is set `pokemon/base/base1`) and lists that node's
 * children with their counts.
 */
export const catalogTreeRoutes = (s: CatalogTreeRouteServices) => [
  defineRoute<'catalogGames', 'public'>({
    operationId: 'catalogGames',
    method: 'get',
    path: '/search/catalog',
    tag: 'Discover',
    summary: 'Games, with how many series, sets and items each has',
    auth: 'public',
    responses: { 200: { description: 'Every game.', schema: Joi.object({ games: Joi.array().items(node).required() }) } },
    handler: async () => cached({ games: await s.catalogTree.games() }),
  }),

  defineRoute<'catalogGame', 'public'>({
    operationId: 'catalogGame',
    method: 'get',
    path: '/search/catalog/{game}',
    tag: 'Discover',
    summary: 'A game and its series, with set and item counts',
    auth: 'public',
    request: { params: Joi.object({ game: segment }) },
    responses: {
      200: {
        description: 'The game and its series.',
        schema: Joi.object({ game: node.required(), series: Joi.array().items(node).required() }),
      },
      404: { description: 'No such game.' },
    },
    handler: async ({ params }) => cached(await s.catalogTree.game(params.game)),
  }),

  defineRoute<'catalogSeries', 'public'>({
    operationId: 'catalogSeries',
    method: 'get',
    path: '/search/catalog/{game}/{series}',
    tag: 'Discover',
    summary: 'A series and its sets (release order), with item counts',
    auth: 'public',
    request: { params: Joi.object({ game: segment, series: segment }) },
    responses: {
      200: {
        description: 'The series and its sets.',
        schema: Joi.object({ game: ref.required(), series: node.required(), sets: Joi.array().items(setNode).required() }),
      },
      404: { description: 'No such series.' },
    },
    handler: async ({ params }) => cached(await s.catalogTree.series(`${params.game}/${params.series}`)),
  }),

  defineRoute<'catalogSet', 'public'>({
    operationId: 'catalogSet',
    method: 'get',
    path: '/search/catalog/{game}/{series}/{set}',
    tag: 'Discover',
    summary: 'A set and one page of its items, in card-number order',
    auth: 'public',
    request: { params: Joi.object({ game: segment, series: segment, set: segment }), query: pageQuery },
    responses: {
      200: {
        description:
          "A page of the set's items in the offset envelope (`total` is `set.counts.items`), with the set and its parents as context.",
        schema: offsetPage(item)
          .keys({ game: ref.required(), series: ref.required(), set: setNode.required() })
          .meta({ component: 'CatalogSetPage' }),
      },
      404: { description: 'No such set.' },
    },
    handler: async ({ params, query }) =>
      // Items carry live prices and stock, so the set page is cached as briefly as search.
      cached(await s.catalogTree.set(`${params.game}/${params.series}/${params.set}`, query.page, query.size), SEARCH_CACHE),
  }),
];
