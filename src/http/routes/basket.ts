import Joi from '../../joi';
import { MAX_BASKET_LINES, MAX_LINE_QUANTITY } from '../../services/basket/baskets';
import { defineRoute } from '../route';
import {
  address,
  addressInput,
  idParams,
  listingsUnavailableProblem,
  orNull,
  pence,
  timestamp,
  userSummary,
  variantsView,
} from '../schemas';
import type { Baskets } from '../../services/basket/baskets';
import type { Checkouts } from '../../services/checkout/checkouts';

const lineParams = Joi.object({ id: Joi.string().uuid().required(), listingId: Joi.string().uuid().required() });
const amount = pence.required();

export const basketView = Joi.object({
  id: Joi.string().required(),
  lines: Joi.array()
    .items(Joi.object({ listingId: Joi.string().required(), quantity: Joi.number().integer().min(1).required() }))
    .required(),
  deliveryAddress: orNull(address).required(),
  createdAt: timestamp.required(),
  updatedAt: timestamp.required(),
}).meta({ component: 'Basket' });

const deliveryChoice = Joi.object({
  id: Joi.string().required(),
  name: Joi.string().required(),
  price: amount,
  tracked: Joi.boolean().required(),
}).meta({ component: 'DeliveryChoice' });

const summaryView = Joi.object({
  id: Joi.string().required(),
  country: Joi.string().required(),
  deliveryAddress: orNull(address).required(),
  sellers: Joi.array()
    .items(
      Joi.object({
        sellerId: Joi.string().required(),
        seller: orNull(userSummary).required(),
        lines: Joi.array()
          .items(
            Joi.object({
              listingId: Joi.string().required(),
              sellerId: Joi.string().required(),
              urn: Joi.string().required(),
              condition: Joi.string().required(),
              language: Joi.string().required(),
              variants: variantsView.required(),
              comment: Joi.string().allow('').required(),
              quantity: Joi.number().integer().min(1).required(),
              price: amount,
              lineTotal: amount,
              available: Joi.number().integer().min(0).required(),
              problem: Joi.string().valid('own-listing', 'not-live', 'insufficient-stock', 'no-delivery').allow(null).required(),
            }),
          )
          .required(),
        subtotal: amount,
        deliveryOptions: Joi.array().items(deliveryChoice).required(),
        deliveryOption: orNull(deliveryChoice).required(),
        deliveryCharge: amount,
        total: amount,
      }),
    )
    .required(),
  subtotal: amount,
  delivery: amount,
  fee: amount,
  total: amount,
  failingListingIds: Joi.array().items(Joi.string()).required(),
}).meta({ component: 'BasketSummary' });

/** The services these routes use (their feature module's, src/modules). */
export interface BasketRouteServices {
  baskets: Baskets;
  checkouts: Checkouts;
}

export const basketRoutes = (s: BasketRouteServices) => [
  defineRoute<'getBasket', 'user'>({
    operationId: 'getBasket',
    method: 'get',
    path: '/basket',
    tag: 'Basket',
    summary: "The caller's open basket (created on first use)",
    auth: 'user',
    responses: { 200: { description: 'The open basket; its `id` addresses the routes below.', schema: basketView } },
    handler: async ({ principal }) => ({ status: 200, body: await s.baskets.open(principal.userId) }),
  }),

  defineRoute<'setBasketLine', 'user'>({
    operationId: 'setBasketLine',
    method: 'put',
    path: '/basket/{id}/items/{listingId}',
    tag: 'Basket',
    summary: 'Add a listing to the basket or change its quantity',
    description: `At most ${MAX_BASKET_LINES} listings per basket and ${MAX_LINE_QUANTITY} units per listing. The listing must be live, not your own, and have the units available.`,
    auth: 'user',
    request: {
      params: lineParams,
      body: Joi.object({ quantity: Joi.number().integer().min(1).max(MAX_LINE_QUANTITY).required() }).example({ quantity: 2 }),
    },
    responses: {
      200: { description: 'The basket.', schema: basketView },
      404: { description: 'Basket or live listing not found.' },
      409: { description: '`own-listing`, `insufficient-stock` or `basket-full`.' },
    },
    handler: async ({ principal, params, body }) => ({
      status: 200,
      body: await s.baskets.setLine(principal.userId, params.id, params.listingId, body.quantity),
    }),
  }),

  defineRoute<'removeBasketLine', 'user'>({
    operationId: 'removeBasketLine',
    method: 'delete',
    path: '/basket/{id}/items/{listingId}',
    tag: 'Basket',
    summary: 'Remove a listing from the basket',
    auth: 'user',
    request: { params: lineParams },
    responses: { 204: { description: 'Removed.' }, 404: { description: 'Basket or line not found.' } },
    handler: async ({ principal, params }) => {
      await s.baskets.removeLine(principal.userId, params.id, params.listingId);
      return { status: 204 };
    },
  }),

  defineRoute<'setBasketDelivery', 'user'>({
    operationId: 'setBasketDelivery',
    method: 'put',
    path: '/basket/{id}/delivery',
    tag: 'Basket',
    summary: 'Set the delivery address and, optionally, the delivery option per seller',
    description:
      "Give either `address` (typed in) or `addressId` (one of the caller's saved addresses, `POST /user/addresses`; its recipient is the saved `name`, or the username when it has none). " +
      "A new basket starts with the primary shipping address. `options` maps a seller id to one of that seller's delivery option ids; sellers not named get their cheapest option that delivers to the address country.",
    auth: 'user',
    request: {
      params: idParams,
      body: Joi.object({
        address: addressInput,
        addressId: Joi.string().uuid(),
        options: Joi.object().pattern(Joi.string().uuid(), Joi.string().uuid()).max(MAX_BASKET_LINES).default({}),
      })
        .xor('address', 'addressId')
        .example({
          address: {
            name: 'Aino Virtanen',
            line1: 'Mannerheimintie 1',
            line2: '',
            city: 'Helsinki',
            state: '',
            postalCode: '00100',
            country: 'FI',
          },
          options: { '0191f3c2-9c60-7d43-b5f6-7a8b9c0d1e2f': '0191f3c2-ad71-7e54-86a7-8b9c0d1e2f30' },
        })
        .example({ addressId: '0191f3c2-be82-7f65-97b8-9c0d1e2f3041' }),
    },
    responses: {
      200: { description: 'The basket summary.', schema: summaryView },
      404: { description: 'Basket or saved address not found.' },
    },
    handler: async ({ principal, params, body }) => ({
      status: 200,
      body:
        'addressId' in body
          ? await s.baskets.setDeliveryFromSaved(principal.userId, params.id, body.addressId, body.options)
          : await s.baskets.setDelivery(principal.userId, params.id, body.address, body.options),
    }),
  }),

  defineRoute<'getBasketSummary', 'user'>({
    operationId: 'getBasketSummary',
    method: 'get',
    path: '/basket/{id}/summary',
    tag: 'Basket',
    summary: 'Per-seller lines, subtotals, delivery options and costs, buyer fee and totals',
    description:
      'All amounts are pence computed on the server. The buyer fee is 2% of the items subtotal rounded up, at least 25p, once per purchase. Lines that cannot be bought carry a `problem` and are listed in `failingListingIds`.',
    auth: 'user',
    request: { params: idParams },
    responses: { 200: { description: 'The basket summary.', schema: summaryView }, 404: { description: 'Basket not found.' } },
    handler: async ({ principal, params }) => ({ status: 200, body: await s.baskets.summary(principal.userId, params.id) }),
  }),

  defineRoute<'checkoutBasket', 'user'>({
    operationId: 'checkoutBasket',
    method: 'post',
    path: '/basket/{id}/checkout',
    tag: 'Basket',
    summary: 'Check the basket out: hold its listings and open a payment session',
    description:
      'Refusals are 409 problem+json with `listingIds` naming every listing that failed (own listing, not live, not enough available, no delivery to the address); `basket-empty` and `delivery-address-required` carry an empty `listingIds`. The holds last `CHECKOUT_HOLD_SECONDS`.',
    auth: 'user',
    request: {
      params: idParams,
      body: Joi.object({
        successUrl: Joi.string()
          .uri({ scheme: ['http', 'https'] })
          .max(2000)
          .required(),
      }).example({ successUrl: 'https://deckbuilder.example/orders/thank-you' }),
    },
    responses: {
      201: { description: 'The payment page to send the buyer to.', schema: Joi.object({ url: Joi.string().required() }) },
      404: { description: 'Basket not found.' },
      409: {
        description: '`listings-unavailable`, `basket-empty` or `delivery-address-required`, with `listingIds`.',
        schema: listingsUnavailableProblem,
      },
    },
    handler: async ({ principal, params, body }) => ({
      status: 201,
      body: await s.checkouts.start(principal.userId, params.id, body.successUrl),
    }),
  }),
];
