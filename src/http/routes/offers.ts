import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import Joi from '../../joi';
import { OFFER_HISTORY_ACTIONS, OFFER_STATUSES } from '../../domain/offers/machine';
import { MAX_PRICE, MAX_QUANTITY } from '../../services/listings/listing-input';
import { requestHash } from '../../services/idempotency/idempotency-keys';
import type { Offers } from '../../services/offers/offers';
import { defineRoute } from '../route';
import { addressInput, idParams, listing, nextActions, offsetPage, orNull, pence, timestamp, userSummary } from '../schemas';

/** The services these routes use (the offers module's, src/modules/offers.ts). */
export interface OfferRouteServices {
  offers: Offers;
}

const BUYER_TAG = 'Offers';
const SELLER_TAG = 'Seller offers';
const NOT_FOUND = { description: "No such offer, or not the caller's." };

/**
 * The Temporal Update id of a move, so Temporal itself recognises a retried request: from the
 * request's `Idempotency-Key`, else its request id, and always from the move itself (method,
 * path, body), scoped to the caller and the offer — as `caseUpdateId` (routes/cases.ts).
 */
function offerUpdateId(ctx: Context, userId: string, offerId: string): string {
  const key = ctx.state.idempotencyKey as string | undefined;
  const source = key ? `key:${key}` : `request:${String(ctx.state.requestId)}`;
  const action = requestHash([ctx.method, ctx.path, ctx.request.body ?? null]);
  return createHash('sha256').update(`${userId}\n${offerId}\n${source}\n${action}`).digest('hex');
}

const unitPrice = Joi.number().integer().min(1).max(MAX_PRICE).description('Pence per unit.');
const quantity = Joi.number().integer().min(1).max(MAX_QUANTITY);

const historyEntry = Joi.object({
  by: Joi.string().valid('BUYER', 'SELLER', 'SYSTEM').required().description('SYSTEM: a threshold, a deadline or a listing change.'),
  action: Joi.string()
    .valid(...OFFER_HISTORY_ACTIONS)
    .required(),
  unitPrice: pence.required(),
  quantity: Joi.number().integer().min(1).required(),
  at: timestamp.required(),
  reason: Joi.string().description('Why the service acted on its own (`auto-accept`, `listing-sold-out`, …).'),
}).meta({ component: 'OfferHistoryEntry' });

export const offerView = Joi.object({
  id: Joi.string().required(),
  listing: orNull(listing).required(),
  buyer: orNull(userSummary).required(),
  seller: orNull(userSummary).required(),
  quantity: Joi.number().integer().min(1).required(),
  unitPrice: pence.required().description('The last price named, per unit; once ACCEPTED, the agreed price.'),
  status: Joi.string()
    .valid(...OFFER_STATUSES)
    .required(),
  message: Joi.string().allow(null).required(),
  history: Joi.array().items(historyEntry).required(),
  expiresAt: timestamp.allow(null).required().description('While PENDING or COUNTERED: when the offer expires unanswered.'),
  payBy: timestamp.allow(null).required().description('Once ACCEPTED: when the offer lapses unpaid and its hold is released.'),
  nextActions,
  checkoutUrl: Joi.string().allow(null).required().description("The open checkout's payment page, once the buyer opened it."),
  purchaseId: Joi.string().allow(null).required(),
  endedReason: Joi.string().allow(null).required(),
  createdAt: timestamp.required(),
  updatedAt: timestamp.required(),
}).meta({ component: 'Offer' });

const offerPage = offsetPage(offerView).meta({ component: 'OfferPage' });

const statusFilter = Joi.array()
  .items(Joi.string().valid(...OFFER_STATUSES))
  .single()
  .description('Repeat for several: any of them.');
const paging = {
  page: Joi.number().integer().min(1).max(10_000).default(1),
  size: Joi.number().integer().min(1).max(50).default(20),
};

const REFUSALS = {
  409: { description: '`offer-closed`, `offer-not-your-turn`, `offer-stock-unavailable`, `offer-listing-ended`.' },
  422: {
    description:
      '`offer-not-below-price`, `offer-quantity-unavailable`, `offer-counter-unchanged`, `offer-counter-price-required`, `offer-action-not-allowed`.',
  },
  503: { description: 'The offer workflow did not answer in time; the move may be retried with the same `Idempotency-Key`.' },
};

export const offerRoutes = (s: OfferRouteServices) => [
  defineRoute<'makeOffer', 'user'>({
    operationId: 'makeOffer',
    method: 'post',
    path: '/user/offers',
    tag: BUYER_TAG,
    summary: 'Make an offer on a listing',
    description:
      "Below the listing price only; one open offer per buyer and listing, at most 3 per listing in 48 hours. The listing's thresholds act at once: " +
      'the answer may already be ACCEPTED (stock held, pay by `payBy`) or DECLINED, and says so in `history`. Emits `OFFER_RECEIVED` to the seller.',
    auth: 'user',
    request: {
      body: Joi.object({
        listingId: Joi.string().uuid().required(),
        quantity: quantity.required(),
        unitPrice: unitPrice.required(),
        message: Joi.string().trim().max(500).empty(''),
      }).example({ listingId: '0191f3c2-7a4e-7b21-9c3d-5e6f7a8b9c0d', quantity: 1, unitPrice: 19500, message: 'Would you take £195?' }),
    },
    responses: {
      201: { description: 'The offer.', schema: offerView },
      403: { description: '`offer-own-listing`, `offer-blocked`.' },
      404: { description: 'No such listing.' },
      409: {
        description: '`offers-disabled`, `offer-seller-away`, `offer-listing-unavailable`, `offer-already-open`, `offer-limit-reached`.',
      },
      422: { description: '`offer-not-below-price`, `offer-quantity-unavailable`.' },
    },
    handler: async ({ principal, body }) => ({ status: 201, body: await s.offers.create(principal.userId, body) }),
  }),

  defineRoute<'listMyOffers', 'user'>({
    operationId: 'listMyOffers',
    method: 'get',
    path: '/user/offers',
    tag: BUYER_TAG,
    summary: "The caller's offers, newest first",
    auth: 'user',
    request: { query: Joi.object({ status: statusFilter, ...paging }) },
    responses: { 200: { description: 'A page of offers.', schema: offerPage } },
    handler: async ({ principal, query }) => ({ status: 200, body: await s.offers.list('BUYER', principal.userId, query) }),
  }),

  defineRoute<'getMyOffer', 'user'>({
    operationId: 'getMyOffer',
    method: 'get',
    path: '/user/offers/{id}',
    tag: BUYER_TAG,
    summary: 'One of the caller’s offers',
    auth: 'user',
    request: { params: idParams },
    responses: { 200: { description: 'The offer.', schema: offerView }, 404: NOT_FOUND },
    handler: async ({ principal, params }) => ({ status: 200, body: await s.offers.get('BUYER', principal.userId, params.id) }),
  }),

  defineRoute<'actOnMyOffer', 'user'>({
    operationId: 'actOnMyOffer',
    method: 'put',
    path: '/user/offers/{id}',
    tag: BUYER_TAG,
    summary: "The buyer's move: accept, decline or counter the seller's counter, or withdraw",
    description:
      'Sent to the offer workflow as a Temporal Update; a refused move changes nothing. A counter names `unitPrice` (and may change `quantity`), below the listing price and different from the last price; the thresholds act on it at once.',
    auth: 'user',
    request: {
      params: idParams,
      body: Joi.object({
        action: Joi.string().valid('accept', 'decline', 'counter', 'withdraw').required(),
        unitPrice: unitPrice.when('action', { is: 'counter', then: Joi.required(), otherwise: Joi.forbidden() }),
        quantity: quantity.when('action', { is: 'counter', otherwise: Joi.forbidden() }),
      }).example({ action: 'counter', unitPrice: 20500 }),
    },
    responses: { 200: { description: 'The offer after the move.', schema: offerView }, 404: NOT_FOUND, ...REFUSALS },
    handler: async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await s.offers.act('BUYER', principal.userId, params.id, body, offerUpdateId(ctx, principal.userId, params.id)),
    }),
  }),

  defineRoute<'checkoutMyOffer', 'user'>({
    operationId: 'checkoutMyOffer',
    method: 'post',
    path: '/user/offers/{id}/checkout',
    tag: BUYER_TAG,
    summary: 'The checkout of an accepted offer, at the agreed price',
    description:
      "One line at the offer's unit price and quantity, the seller's delivery to the address (the cheapest unless `deliveryOptionId` names another) and the buyer fee; " +
      'the units stay held and the payment page takes payment until `payBy`. An open checkout is answered again. ' +
      "Give either `deliveryAddress` or `addressId` (one of the caller's saved addresses; its recipient is the saved `name`, or the username when it has none).",
    auth: 'user',
    request: {
      params: idParams,
      body: Joi.object({
        successUrl: Joi.string()
          .uri({ scheme: ['http', 'https'] })
          .max(2000)
          .required(),
        deliveryAddress: addressInput,
        addressId: Joi.string().uuid().description("One of the caller's saved addresses, instead of `deliveryAddress`."),
        deliveryOptionId: Joi.string().uuid(),
      })
        .xor('deliveryAddress', 'addressId')
        .example({
          successUrl: 'https://deckbuilder.example/orders/thank-you',
          deliveryAddress: {
            name: 'Ada Lovelace',
            line1: '1 Analytical Row',
            line2: '',
            city: 'London',
            state: '',
            postalCode: 'N1 9GU',
            country: 'GB',
          },
        })
        .example({ successUrl: 'https://deckbuilder.example/orders/thank-you', addressId: '0191f3c2-be82-7f65-97b8-9c0d1e2f3041' }),
    },
    responses: {
      201: {
        description: 'The payment page to send the buyer to.',
        schema: Joi.object({ url: Joi.string().required(), sessionId: Joi.string().required() }).meta({ component: 'OfferCheckout' }),
      },
      404: NOT_FOUND,
      409: { description: '`offer-not-accepted`, `offer-no-delivery`, `offer-stock-unavailable`.' },
    },
    handler: async ({ principal, params, body }) => ({ status: 201, body: await s.offers.checkout(principal.userId, params.id, body) }),
  }),

  defineRoute<'listSellerOffers', 'seller'>({
    operationId: 'listSellerOffers',
    method: 'get',
    path: '/seller/offers',
    tag: SELLER_TAG,
    summary: "Offers on the caller's listings, filtered by status, listing and deadline",
    description:
      'Newest first; with `dueBefore`, only offers whose running deadline (expiry, or payment once accepted) falls before it, soonest first.',
    auth: 'seller',
    request: {
      query: Joi.object({ status: statusFilter, listingId: Joi.string().uuid(), dueBefore: Joi.date().iso(), ...paging }),
    },
    responses: { 200: { description: 'A page of offers.', schema: offerPage } },
    handler: async ({ principal, query }) => ({ status: 200, body: await s.offers.list('SELLER', principal.userId, query) }),
  }),

  defineRoute<'getSellerOffer', 'seller'>({
    operationId: 'getSellerOffer',
    method: 'get',
    path: '/seller/offers/{id}',
    tag: SELLER_TAG,
    summary: "One offer on the caller's listings",
    auth: 'seller',
    request: { params: idParams },
    responses: { 200: { description: 'The offer.', schema: offerView }, 404: NOT_FOUND },
    handler: async ({ principal, params }) => ({ status: 200, body: await s.offers.get('SELLER', principal.userId, params.id) }),
  }),

  defineRoute<'actOnSellerOffer', 'seller'>({
    operationId: 'actOnSellerOffer',
    method: 'put',
    path: '/seller/offers/{id}',
    tag: SELLER_TAG,
    summary: "The seller's move: accept, decline or counter",
    description:
      'Sent to the offer workflow as a Temporal Update. Accepting holds the units at the agreed price (409 `offer-stock-unavailable` when they are held or sold: the offer stays open); the buyer then pays by `payBy`.',
    auth: 'seller',
    request: {
      params: idParams,
      body: Joi.object({
        action: Joi.string().valid('accept', 'decline', 'counter').required(),
        unitPrice: unitPrice.when('action', { is: 'counter', then: Joi.required(), otherwise: Joi.forbidden() }),
      }).example({ action: 'counter', unitPrice: 21000 }),
    },
    responses: { 200: { description: 'The offer after the move.', schema: offerView }, 404: NOT_FOUND, ...REFUSALS },
    handler: async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await s.offers.act('SELLER', principal.userId, params.id, body, offerUpdateId(ctx, principal.userId, params.id)),
    }),
  }),
];
