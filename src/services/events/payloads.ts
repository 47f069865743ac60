import type { ObjectSchema } from 'joi';
import Joi from '../../joi';
import { OFFER_STATUSES } from '../../domain/offers/machine';
import { TEST_EVENT_TYPE } from '../webhooks/endpoints';
import type { EventType } from './outbox';

/**
 * The data of each webhook event type, as Joi: the one description of what a receiver gets, which
 * the OpenAPI document publishes under `webhooks` (src/http/openapi-webhooks.ts). The TypeScript
 * types in outbox.ts say the same for the code that emits; test/types/generated-client.ts fails to
 * compile when the published schema and those types part.
 */

const createdAt = Joi.date()
  .iso()
  .required()
  .description('When the change happened (ISO 8601, UTC). The time of the attempt is the signed `webhook-timestamp` header.');
const sellerId = Joi.string().required().description('The seller whose endpoints receive the event.');
const pence = Joi.number().integer().required().description('Pence.');
const currency = Joi.string().required().description('ISO 4217 code; `GBP`.');

const listingEventData = Joi.object({
  sellerId,
  createdAt,
  urn: Joi.string().required().description("The listed catalog item's URN."),
  listingId: Joi.string().required(),
  quantity: Joi.number().integer().required().description("The listing's quantity as the seller set it."),
  price: pence.description('Unit price in pence.'),
}).meta({ component: 'ListingEventData' });

const orderEventData = Joi.object({
  sellerId,
  createdAt,
  orderId: Joi.string().required(),
  listings: Joi.array()
    .items(
      Joi.object({
        urn: Joi.string().required(),
        listingId: Joi.string().required(),
        quantity: Joi.number().integer().required(),
        price: pence.description('Unit price in pence.'),
      }).meta({ component: 'OrderEventListing' }),
    )
    .required()
    .description('What the order holds (for ORDER_CANCELLED: what was cancelled).'),
}).meta({ component: 'OrderEventData' });

const payoutEventData = Joi.object({
  sellerId,
  createdAt,
  payoutId: Joi.string().required(),
  amount: pence,
  currency,
  status: Joi.string().valid('PAID', 'FAILED').required(),
}).meta({ component: 'PayoutEventData' });

const refundEventData = Joi.object({
  sellerId,
  createdAt,
  orderId: Joi.string().required(),
  adjustmentId: Joi.string().required(),
  reason: Joi.string().valid('CASE', 'CANCELLATION').required().description('A case outcome, or a cancellation of the order.'),
  amount: pence,
  currency,
}).meta({ component: 'RefundEventData' });

const offerEventData = Joi.object({
  sellerId,
  createdAt,
  offerId: Joi.string().required(),
  listingId: Joi.string().required(),
  buyerId: Joi.string().required(),
  quantity: Joi.number().integer().required(),
  unitPrice: pence.description('The offered unit price in pence.'),
  status: Joi.string()
    .valid(...OFFER_STATUSES)
    .required()
    .description('Tells apart what one type covers: OFFER_DECLINED is DECLINED or WITHDRAWN, OFFER_EXPIRED is EXPIRED or LAPSED.'),
  reason: Joi.string().description(
    'Present only when the service acted on its own: `auto-accept`, `auto-decline`, `listing-deleted`, `listing-sold-out`, `listing-repriced`.',
  ),
}).meta({ component: 'OfferEventData' });

const testEventData = Joi.object({ sellerId, createdAt }).meta({ component: 'TestEventData' });

export type WebhookEventType = EventType | typeof TEST_EVENT_TYPE;

/** Every type a receiver can get, with its data and when it is sent. */
export const WEBHOOK_EVENTS: Record<WebhookEventType, { data: ObjectSchema; when: string }> = {
  LISTING_CREATED: { data: listingEventData, when: 'A listing was created (one by one, in bulk or by a CSV import).' },
  LISTING_UPDATED: {
    data: listingEventData,
    when: 'The seller edited a listing (a sale changes stock without an event; ORDER_CREATED says what sold).',
  },
  LISTING_DELETED: { data: listingEventData, when: 'A listing was deleted; the data is its last state.' },
  ORDER_CREATED: { data: orderEventData, when: 'A buyer paid: one event per order, with the listings bought.' },
  ORDER_UPDATED: { data: orderEventData, when: "An order's status or one of its shipments' tracking changed." },
  ORDER_CANCELLED: { data: orderEventData, when: 'An order was cancelled; `listings` are the cancelled items.' },
  PAYOUT_PAID: { data: payoutEventData, when: "A payout reached the seller's bank account." },
  PAYOUT_FAILED: { data: payoutEventData, when: 'A payout failed; its amount is available again.' },
  REFUND_CREATED: { data: refundEventData, when: "Money was refunded to the buyer of one of the seller's orders." },
  OFFER_RECEIVED: { data: offerEventData, when: 'A buyer made an offer, or countered the seller.' },
  OFFER_ACCEPTED: { data: offerEventData, when: 'An offer was accepted (by the seller, the buyer of a counter, or automatically).' },
  OFFER_DECLINED: { data: offerEventData, when: 'An offer was declined or withdrawn.' },
  OFFER_EXPIRED: { data: offerEventData, when: 'An offer went unanswered, or was accepted and not paid, in time.' },
  TEST_WEBHOOK: { data: testEventData, when: 'Sent only by `POST /seller/webhooks/{webhookId}/test`, to that endpoint; not subscribable.' },
};

/** `LISTING_CREATED` → `ListingCreatedEvent`: the name of a type's whole body in the document. */
export const eventComponentName = (type: WebhookEventType) =>
  `${type
    .toLowerCase()
    .split('_')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('')}Event`;

/** The body a receiver gets for `type`: `{type, data}` (docs/webhooks.md, "What a receiver gets"). */
export const webhookBody = (type: WebhookEventType): ObjectSchema =>
  Joi.object({
    type: Joi.string().valid(type).required(),
    data: WEBHOOK_EVENTS[type].data.required(),
  })
    .description(WEBHOOK_EVENTS[type].when)
    .meta({ component: eventComponentName(type) });
