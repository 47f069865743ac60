import Joi from '../../joi';
import { MAX_PRICE_ALERTS, type PriceAlertInput, type PriceAlerts } from '../../services/alerts/price-alerts';
import { MAX_WATCHED, type Watchlist } from '../../services/alerts/watchlist';
import { MAX_PRICE } from '../../services/listings/listing-input';
import { card, lineOptions, urn } from '../../services/wants/line-input';
import { defineRoute } from '../route';
import { idParams, orNull, pence, timestamp } from '../schemas';

/** The services these routes use (the alerts module's, src/modules/alerts.ts). */
export interface PriceAlertRouteServices {
  priceAlerts: PriceAlerts;
  watchlist: Watchlist;
}

const TAG = 'Alerts';

// What an alert names and asks of a listing are a wants line's (line-input.ts): one definition.
const priceAlertInput = Joi.object<PriceAlertInput>({
  urn,
  card,
  maxPrice: Joi.number().integer().min(1).max(MAX_PRICE).required().description('Pence per unit: listings at this price or less fire.'),
  minCondition: lineOptions.minCondition,
  languages: lineOptions.languages,
  variants: lineOptions.variants,
})
  .xor('urn', 'card')
  .example({ card: { game: 'pokemon', name: 'Charizard' }, maxPrice: 25000, minCondition: 'EXCELLENT', languages: ['en'] })
  .example({ urn: 'pokemon/base/base1/4', maxPrice: 30000 });

const priceAlert = Joi.object({
  id: Joi.string().required(),
  urn: Joi.string().allow(null).required().description('The one item; null for a card alert.'),
  card: orNull(Joi.object({ game: Joi.string().required(), name: Joi.string().required().description("The catalog's spelling.") }))
    .required()
    .description('A card by name within a game (any printing); null for an item alert.'),
  maxPrice: pence.required(),
  minCondition: Joi.string().allow(null).required(),
  languages: Joi.array().items(Joi.string()).allow(null).required(),
  variants: Joi.array()
    .items(Joi.object({ name: Joi.string().required(), value: Joi.string().required() }))
    .allow(null)
    .required(),
  createdAt: timestamp.required(),
}).meta({ component: 'PriceAlert' });

const watched = Joi.object({
  listingId: Joi.string().required(),
  urn: Joi.string().required(),
  name: Joi.string().required(),
  price: pence.required().description('Now, in pence.'),
  available: Joi.number().integer().min(0).required(),
  live: Joi.boolean().required().description('Whether buyers can buy it now.'),
  createdAt: timestamp.required().description('When it was watched.'),
}).meta({ component: 'WatchedListing' });

const listingParams = Joi.object({ listingId: Joi.string().uuid().required() });

export const priceAlertRoutes = (s: PriceAlertRouteServices) => [
  defineRoute<'listPriceAlerts', 'user'>({
    operationId: 'listPriceAlerts',
    method: 'get',
    path: '/user/price-alerts',
    tag: TAG,
    summary: "The caller's price alerts, oldest first",
    description: `At most ${MAX_PRICE_ALERTS}, so one answer holds them all.`,
    auth: 'user',
    responses: { 200: { description: 'The alerts.', schema: Joi.object({ alerts: Joi.array().items(priceAlert).required() }) } },
    handler: async ({ principal }) => ({ status: 200, body: { alerts: await s.priceAlerts.list(principal.userId) } }),
  }),

  defineRoute<'createPriceAlert', 'user'>({
    operationId: 'createPriceAlert',
    method: 'post',
    path: '/user/price-alerts',
    tag: TAG,
    summary: 'Be told when a listing that fits appears, or drops, at or below a price',
    description:
      'Exactly one of `urn` (one item) and `card` (every printing of a card within a game, matched case-blind); `minCondition`, `languages` and `variants` as on a wants line. ' +
      'A listing created, repriced or back in stock that fits fires a `PRICE_ALERT` notification, once per listing and price (docs/alerts.md, "Firing rules"). ' +
      `At most ${MAX_PRICE_ALERTS} per user.`,
    auth: 'user',
    request: { body: priceAlertInput },
    responses: {
      201: { description: 'The alert.', schema: priceAlert },
      400: { description: '`wants-card-unknown`: the catalog has no such item, game or card; or `validation-failed`.' },
      409: { description: '`price-alert-limit-reached`.' },
    },
    handler: async ({ principal, body }) => ({ status: 201, body: await s.priceAlerts.create(principal.userId, body) }),
  }),

  defineRoute<'getPriceAlert', 'user'>({
    operationId: 'getPriceAlert',
    method: 'get',
    path: '/user/price-alerts/{id}',
    tag: TAG,
    summary: 'One of the caller’s price alerts',
    auth: 'user',
    request: { params: idParams },
    responses: { 200: { description: 'The alert.', schema: priceAlert }, 404: { description: "No such alert, or not the caller's." } },
    handler: async ({ principal, params }) => ({ status: 200, body: await s.priceAlerts.get(principal.userId, params.id) }),
  }),

  defineRoute<'deletePriceAlert', 'user'>({
    operationId: 'deletePriceAlert',
    method: 'delete',
    path: '/user/price-alerts/{id}',
    tag: TAG,
    summary: 'Delete a price alert',
    description: 'Its notifications stay, with `alertId` null.',
    auth: 'user',
    request: { params: idParams },
    responses: { 204: { description: 'Deleted.' }, 404: { description: "No such alert, or not the caller's." } },
    handler: async ({ principal, params }) => {
      await s.priceAlerts.remove(principal.userId, params.id);
      return { status: 204 };
    },
  }),

  defineRoute<'listWatchlist', 'user'>({
    operationId: 'listWatchlist',
    method: 'get',
    path: '/user/watchlist',
    tag: TAG,
    summary: 'The listings the caller watches, most recently watched first',
    description: `At most ${MAX_WATCHED}, so one answer holds them all; a listing no longer for sale stays until removed, with \`live\` false.`,
    auth: 'user',
    responses: { 200: { description: 'The watched listings.', schema: Joi.object({ listings: Joi.array().items(watched).required() }) } },
    handler: async ({ principal }) => ({ status: 200, body: { listings: await s.watchlist.list(principal.userId) } }),
  }),

  defineRoute<'watchListing', 'user'>({
    operationId: 'watchListing',
    method: 'post',
    path: '/user/watchlist',
    tag: TAG,
    summary: 'Watch a listing: be told when it drops in price, has one unit left, or is gone',
    description: `A live listing of another seller. Watching it again answers 200 and changes nothing. At most ${MAX_WATCHED} per user.`,
    auth: 'user',
    request: {
      body: Joi.object({ listingId: Joi.string().uuid().required() }).example({ listingId: '01937a4e-8d2c-7b1a-9c3e-5f6a7b8c9d0e' }),
    },
    responses: {
      200: { description: 'Already watched.', schema: watched },
      201: { description: 'Watched.', schema: watched },
      404: { description: 'No such live listing.' },
      409: { description: '`own-listing` or `watchlist-limit-reached`.' },
    },
    handler: async ({ principal, body }) => {
      const { created, watched: view } = await s.watchlist.watch(principal.userId, body.listingId);
      return { status: created ? 201 : 200, body: view };
    },
  }),

  defineRoute<'unwatchListing', 'user'>({
    operationId: 'unwatchListing',
    method: 'delete',
    path: '/user/watchlist/{listingId}',
    tag: TAG,
    summary: 'Stop watching a listing',
    auth: 'user',
    request: { params: listingParams },
    responses: { 204: { description: 'No longer watched.' }, 404: { description: 'The caller does not watch it.' } },
    handler: async ({ principal, params }) => {
      await s.watchlist.unwatch(principal.userId, params.listingId);
      return { status: 204 };
    },
  }),
];
