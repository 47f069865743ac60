import type { EntityManager } from 'typeorm';
import { OutboxEvent } from '../../db/entities';
import type { OfferStatus } from '../../domain/offers/machine';
import { newId } from '../../ids';

/**
 * Webhook event types (spec "Events"); subscriptions use the same names. Case changes are not
 * among them: the interface makes case updates internal side effects, not webhook events
 * (docs/webhooks.md).
 */
export const EVENT_TYPES = [
  'LISTING_CREATED',
  'LISTING_UPDATED',
  'LISTING_DELETED',
  'ORDER_CREATED',
  'ORDER_UPDATED',
  'ORDER_CANCELLED',
  'PAYOUT_PAID',
  'PAYOUT_FAILED',
  'REFUND_CREATED',
  'OFFER_RECEIVED',
  'OFFER_ACCEPTED',
  'OFFER_DECLINED',
  'OFFER_EXPIRED',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

// Type aliases, not interfaces: they must be assignable to the jsonb column's Record type. What a
// receiver gets is described once, in Joi (payloads.ts); test/types/generated-client.ts checks
// that these types and the published schemas say the same.
export type ListingEventData = {
  sellerId: string;
  createdAt: string;
  urn: string;
  listingId: string;
  quantity: number;
  price: number;
};

export type OrderEventData = {
  sellerId: string;
  createdAt: string;
  orderId: string;
  listings: Array<{ urn: string; listingId: string; quantity: number; price: number }>;
};

export type PayoutEventData = {
  sellerId: string;
  createdAt: string;
  payoutId: string;
  amount: number;
  currency: string;
  status: 'PAID' | 'FAILED';
};

export type RefundEventData = {
  sellerId: string;
  createdAt: string;
  orderId: string;
  adjustmentId: string;
  reason: 'CASE' | 'CANCELLATION';
  amount: number;
  currency: string;
};

/**
 * An offer's events (docs/offers.md): `status` tells apart what one type covers (OFFER_DECLINED:
 * DECLINED or WITHDRAWN; OFFER_EXPIRED: EXPIRED or LAPSED); `reason` says why the service ended
 * it on its own (`auto-decline`, `listing-deleted`, `listing-sold-out`, `listing-repriced`).
 */
export type OfferEventData = {
  sellerId: string;
  createdAt: string;
  offerId: string;
  listingId: string;
  buyerId: string;
  quantity: number;
  unitPrice: number;
  status: OfferStatus;
  /** Only when the service acted on its own. */
  reason?: string;
};

export type EventData<T extends EventType> = T extends 'ORDER_CREATED' | 'ORDER_UPDATED' | 'ORDER_CANCELLED'
  ? OrderEventData
  : T extends 'PAYOUT_PAID' | 'PAYOUT_FAILED'
    ? PayoutEventData
    : T extends 'REFUND_CREATED'
      ? RefundEventData
      : T extends 'OFFER_RECEIVED' | 'OFFER_ACCEPTED' | 'OFFER_DECLINED' | 'OFFER_EXPIRED'
        ? OfferEventData
        : ListingEventData;

/**
 * Records events in the caller's transaction: they exist exactly when the change that caused
 * them commits, and Temporal being down only delays their delivery. Returns the event ids.
 */
export async function emitEvents<T extends EventType>(tx: EntityManager, type: T, events: Array<EventData<T>>): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = events.map((data) => ({ id: newId(), sellerId: data.sellerId, type, data }));
  await tx.getRepository(OutboxEvent).insert(rows);
  return rows.map((r) => r.id);
}
