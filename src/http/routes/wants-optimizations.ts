import Joi from '../../joi';
import type { WantsOptimizations } from '../../services/wants/optimizations';
import { defineRoute } from '../route';
import { ISO_3166_1, orNull, pence, problemSchema, timestamp } from '../schemas';
import { basketView } from './basket';

const listParams = Joi.object({ id: Joi.string().uuid().required() });
const optimizationParams = Joi.object({ id: Joi.string().uuid().required(), optimizationId: Joi.string().uuid().required() });

/** The longest a buyer may let the solver search (the answer then carries a proven bound). */
export const MAX_TIME_LIMIT_MS = 10_000;

const requestBody = Joi.object({
  addressId: Joi.string().uuid().description('A saved shipping address of yours: the destination, also set on the basket by `/basket`.'),
  country: Joi.string()
    .trim()
    .uppercase()
    .pattern(/^[A-Z]{2}$/, ISO_3166_1)
    .description('ISO 3166-1 alpha-2 destination, when no `addressId` is given.'),
  maxSellers: Joi.number().integer().min(1).max(100).description('Buy from at most this many sellers.'),
  minSellerRating: Joi.number()
    .min(0)
    .max(5)
    .description('Only sellers whose mean rating is at least this (sellers with no reviews are left out).'),
  excludeSellerIds: Joi.array().items(Joi.string().uuid()).max(100).unique().description('Sellers not to buy from.'),
  lineIds: Joi.array().items(Joi.string().uuid()).min(1).max(1000).unique().description('Only these lines of the list; all when absent.'),
  timeLimitMs: Joi.number()
    .integer()
    .min(100)
    .max(MAX_TIME_LIMIT_MS)
    .description('How long the solver may search; when it runs out the best basket found comes with a proven lower bound.'),
})
  .xor('addressId', 'country')
  .example({ country: 'GB', maxSellers: 5, minSellerRating: 4.5, timeLimitMs: 5000 });

const requestView = Joi.object({
  country: Joi.string().required(),
  addressId: orNull(Joi.string()).required(),
  maxSellers: orNull(Joi.number().integer()).required(),
  minSellerRating: orNull(Joi.number()).required(),
  excludeSellerIds: Joi.array().items(Joi.string()).required(),
  lineIds: orNull(Joi.array().items(Joi.string())).required(),
  timeLimitMs: Joi.number().integer().required(),
}).meta({ component: 'OptimizationRequest' });

const optimizationView = Joi.object({
  id: Joi.string().required(),
  listId: Joi.string().required(),
  status: Joi.string()
    .valid('RUNNING', 'DONE', 'FAILED')
    .required()
    .description('RUNNING until the answer is recorded; FAILED when it could not be solved.'),
  request: requestView.required(),
  solverStatus: orNull(Joi.string().valid('OPTIMAL', 'TIME_LIMIT'))
    .required()
    .description('OPTIMAL: `total` is proven the cheapest; TIME_LIMIT: the best found in time, within `gap` of the cheapest.'),
  total: orNull(pence).required().description('Items plus delivery of the basket, pence.'),
  itemsTotal: orNull(pence).required(),
  deliveryTotal: orNull(pence).required(),
  naiveTotal: orNull(pence)
    .required()
    .description("The same units bought at each line's cheapest listings, one delivery per seller: what the optimizer saves against."),
  lowerBound: orNull(pence).required().description('Proven: no basket filling the same units costs less.'),
  gap: orNull(Joi.number().min(0).max(1)).required().description('(total − lowerBound) / total: 0 when proven optimal.'),
  solveMs: orNull(Joi.number().integer().min(0)).required(),
  sellers: orNull(
    Joi.array().items(
      Joi.object({
        sellerId: Joi.string().required(),
        deliveryOptionId: Joi.string().required(),
        deliveryPrice: pence.required(),
        itemsTotal: pence.required(),
      }),
    ),
  ).required(),
  picks: orNull(
    Joi.array().items(
      Joi.object({
        lineId: Joi.string().required(),
        listingId: Joi.string().required(),
        sellerId: Joi.string().required(),
        quantity: Joi.number().integer().min(1).required(),
        unitPrice: pence.required(),
      }),
    ),
  ).required(),
  unfilled: orNull(
    Joi.array().items(
      Joi.object({
        lineId: Joi.string().required(),
        missing: Joi.number().integer().min(1).required(),
        reason: Joi.string().valid('NO_STOCK', 'OVER_MAX_PRICE', 'NO_ELIGIBLE_SELLER', 'NOT_ENOUGH_STOCK', 'MAX_SELLERS').required(),
      }),
    ),
  )
    .required()
    .description('Lines not wholly filled, and why (docs/wants.md).'),
  createdAt: timestamp.required(),
  finishedAt: orNull(timestamp).required(),
}).meta({ component: 'Optimization' });

const basketRefusal = problemSchema
  .keys({ listingIds: Joi.array().items(Joi.string()).description('`optimization-outdated`: every pick that changed.') })
  .meta({ component: 'OptimizationBasketProblem' });

/** Basket optimizations of a wants list (docs/wants.md, "The optimizer"). */
export const wantsOptimizationRoutes = (s: { optimizations: WantsOptimizations }) => [
  defineRoute<'optimizeWantsList', 'user'>({
    operationId: 'optimizeWantsList',
    method: 'post',
    path: '/user/wants/{id}/optimizations',
    tag: 'Wants lists',
    summary: 'Find the cheapest basket that fills the list, with a proven bound',
    description:
      'Chooses how many units to take from which listings so that every line is filled (or reported in `unfilled` with the reason), ' +
      "minimising items plus delivery (each seller's cheapest option to the destination, charged once). Solved as a mixed-integer program; " +
      'answers 201 with the result when it is ready within a few seconds, else 202 and the client reads the `Location`.',
    auth: 'user',
    request: { params: listParams, body: requestBody },
    responses: {
      201: { description: 'Solved: the optimization.', schema: optimizationView },
      202: { description: 'Still solving: read it at `Location`.', schema: optimizationView },
      400: { description: 'Invalid body, or `lineIds` that are not lines of this list.' },
      404: { description: 'No such list (or address) of yours.' },
    },
    handler: async ({ principal, params, body }) => {
      const { finished, optimization } = await s.optimizations.request(principal.userId, params.id, body);
      return {
        status: finished ? 201 : 202,
        body: optimization,
        headers: { Location: `/user/wants/${params.id}/optimizations/${optimization.id}` },
      };
    },
  }),

  defineRoute<'getWantsOptimization', 'user'>({
    operationId: 'getWantsOptimization',
    method: 'get',
    path: '/user/wants/{id}/optimizations/{optimizationId}',
    tag: 'Wants lists',
    summary: 'An optimization, as it was answered',
    auth: 'user',
    request: { params: optimizationParams },
    responses: {
      200: { description: 'The optimization.', schema: optimizationView },
      404: { description: 'No such optimization of your list.' },
    },
    handler: async ({ principal, params }) => ({
      status: 200,
      body: await s.optimizations.get(principal.userId, params.id, params.optimizationId),
    }),
  }),

  defineRoute<'basketFromOptimization', 'user'>({
    operationId: 'basketFromOptimization',
    method: 'post',
    path: '/user/wants/{id}/optimizations/{optimizationId}/basket',
    tag: 'Wants lists',
    summary: "Put the optimization's picks and delivery choices into your basket",
    description:
      'In one transaction: every pick is added to your open basket at the price it was optimized at, with the chosen delivery option per seller ' +
      '(and the saved address, when the optimization named one). When any pick is no longer live, was repriced or lacks the units, nothing changes ' +
      'and 409 `optimization-outdated` names them in `listingIds`. Send an `Idempotency-Key` to retry safely.',
    auth: 'user',
    request: { params: optimizationParams },
    responses: {
      200: { description: 'Your basket with the picks.', schema: basketView },
      404: { description: 'No such optimization of your list.' },
      409: {
        description: '`optimization-outdated` with `listingIds`; `optimization-not-finished`; `basket-full`.',
        schema: basketRefusal,
      },
    },
    handler: async ({ principal, params }) => ({
      status: 200,
      body: await s.optimizations.toBasket(principal.userId, params.id, params.optimizationId),
    }),
  }),
];
