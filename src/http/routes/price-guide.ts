import Joi from '../../joi';
import type { PriceGuides } from '../../services/price-guide/price-guide';
import { defineRoute } from '../route';
import { catalogUrn, priceGuideEntry } from '../schemas';
import { SEARCH_CACHE } from './discover-common';

/** The services these routes use (the price guide module's, src/modules/price-guide.ts). */
export interface PriceGuideRouteServices {
  guides: PriceGuides;
}

export const priceGuideRoutes = (s: PriceGuideRouteServices) => [
  defineRoute<'itemPriceGuide', 'public'>({
    operationId: 'itemPriceGuide',
    method: 'get',
    path: '/search/price-guide',
    tag: 'Discover',
    summary: 'Price guide of an item: per condition group, the lowest price now, the trend and 1/7/30-day sale averages',
    description:
      'From completed sales (units weigh alike) and live listings; formulas in docs/price-guide.md. ' +
      'Every condition group is present, best first, with nulls and zero counts where there is nothing to go on.',
    auth: 'public',
    request: { query: Joi.object({ urn: catalogUrn.required() }) },
    responses: {
      200: {
        description: 'One entry per condition group.',
        schema: Joi.object({ urn: Joi.string().required(), groups: Joi.array().items(priceGuideEntry).required() }),
      },
      404: { description: 'No such item.' },
    },
    handler: async ({ query }) => ({
      status: 200,
      body: await s.guides.guide(query.urn),
      headers: { 'Cache-Control': SEARCH_CACHE },
    }),
  }),
];
