/**
 * A program an integrator would write against the generated client (generated/api.d.ts, made by
 * scripts/openapi-client.mjs with openapi-typescript), checked by the compiler only: it is part of
 * `npm run build`'s type-check (tsconfig.json includes test/), and
 * test/unit/generated-client-types.test.ts compiles it again against degraded copies of the
 * types to show that each assertion fails when a field turns into `unknown` or `any`.
 *
 * Nothing here runs; every check is a type that must be `true`.
 */
import type { components, webhooks } from '../../generated/api';
import type { EventData, EventType } from '../../src/services/events/outbox';

type Schemas = components['schemas'];

/** True only when A and B are the same type (`any` equals nothing but `any`). */
export type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
export type IsAny<T> = 0 extends 1 & T ? true : false;
/** Fails to compile unless T is `true`. */
export type Assert<T extends true> = T;
/** Fails to compile unless T is `never`; the error quotes what T is instead. */
export type Nothing<T extends never> = T;

/**
 * The paths (`Listing.seller.username`) of every field, down to `depth` levels, whose type is
 * `unknown` or `any`: what openapi-typescript makes of a schema it cannot type. Open maps
 * (`[name: string]: …` index signatures) are skipped: their values are whatever the caller put in.
 */
type Depth = [never, 0, 1, 2, 3, 4];
type NamedKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: 0 } & string;
export type UntypedFields<T, Path extends string, D extends number = 4> = [D] extends [never]
  ? never
  : IsAny<T> extends true
    ? Path
    : unknown extends T
      ? Path
      : T extends readonly (infer E)[]
        ? UntypedFields<E, `${Path}[]`, Depth[D]>
        : T extends object
          ? { [K in NamedKeys<T>]: UntypedFields<T[K], `${Path}.${K}`, Depth[D]> }[NamedKeys<T>]
          : never;

// --- Nullable references stay typed: `{anyOf: [$ref, null]}` is `X | null`, never `unknown`. ---

// No return type written: what the compiler infers is checked below.
export function sellerName(listing: Schemas['Listing']) {
  return listing.seller?.username;
}
export type ListingSellerUsername = Assert<Equals<ReturnType<typeof sellerName>, string | undefined>>;
export type NullableReferences = Assert<
  Equals<
    [
      Schemas['Listing']['seller'],
      Schemas['Listing']['item'],
      Schemas['ListingHit']['priceGuide'],
      Schemas['Review']['reviewer'],
      Schemas['Basket']['deliveryAddress'],
      Schemas['SellerOrderSummary']['buyer'],
      Schemas['CaseOutcome']['deliveryAddress'],
      Schemas['WantsLine']['card'],
      Schemas['SavedSearch']['listings'],
      Schemas['Offer']['listing'],
    ],
    [
      Schemas['UserSummary'] | null,
      Schemas['Item'] | null,
      Schemas['PriceGuideEntry'] | null,
      Schemas['UserSummary'] | null,
      Schemas['Address'] | null,
      Schemas['UserSummary'] | null,
      Schemas['Address'] | null,
      Schemas['WantedCardView'] | null,
      Schemas['ListingSearch'] | null,
      Schemas['Listing'] | null,
    ]
  >
>;
export type ReviewerUsername = Assert<Equals<NonNullable<Schemas['Review']['reviewer']>['username'], string>>;

/** No field of any published schema is untyped (the error names the field). */
export type NoUntypedSchemaField = Nothing<UntypedFields<Schemas, 'components'>>;

// --- Every webhook event type, with the payload the service emits. ---

type WebhookType = keyof webhooks;
type WebhookBody<T extends WebhookType> = webhooks[T]['post']['requestBody']['content']['application/json'];
/** What a receiver parses: the union of every body, told apart by `type`. */
export type AnyWebhookBody = WebhookBody<WebhookType>;

export type EveryEventTypeIsPublished = Assert<Equals<WebhookType, EventType | 'TEST_WEBHOOK'>>;
/** Each published body is `{type: T, data}` with exactly the data the service emits for T. */
export type PayloadsAreTheServiceTypes = Assert<
  Equals<{ [T in EventType]: Equals<WebhookBody<T>, { type: T; data: EventData<T> }> }[EventType], true>
>;
export type TestPayload = Assert<Equals<WebhookBody<'TEST_WEBHOOK'>['data'], { sellerId: string; createdAt: string }>>;
export type NoUntypedWebhookField = Nothing<UntypedFields<{ [T in WebhookType]: WebhookBody<T> }, 'webhooks'>>;

/** A receiver's dispatch: `type` narrows the body, and every type is handled (`never` at the end). */
export function describeEvent(body: AnyWebhookBody): string {
  switch (body.type) {
    case 'LISTING_CREATED':
    case 'LISTING_UPDATED':
    case 'LISTING_DELETED':
      return `${body.type} ${body.data.listingId} ${body.data.urn}: ${body.data.quantity} at ${body.data.price}p`;
    case 'ORDER_CREATED':
    case 'ORDER_UPDATED':
    case 'ORDER_CANCELLED':
      return `${body.type} ${body.data.orderId}: ${body.data.listings.map((l) => `${l.quantity} × ${l.urn}`).join(', ')}`;
    case 'PAYOUT_PAID':
    case 'PAYOUT_FAILED': {
      const status: 'PAID' | 'FAILED' = body.data.status;
      return `${body.type} ${body.data.payoutId}: ${body.data.amount} ${body.data.currency} ${status}`;
    }
    case 'REFUND_CREATED': {
      const reason: 'CASE' | 'CANCELLATION' = body.data.reason;
      return `${body.type} ${body.data.orderId}: ${body.data.amount} (${reason})`;
    }
    case 'OFFER_RECEIVED':
    case 'OFFER_ACCEPTED':
    case 'OFFER_DECLINED':
    case 'OFFER_EXPIRED': {
      const reason: string | undefined = body.data.reason;
      return `${body.type} ${body.data.offerId}: ${body.data.quantity} at ${body.data.unitPrice}p, ${body.data.status} ${reason ?? ''}`;
    }
    case 'TEST_WEBHOOK':
      return `${body.type} for ${body.data.sellerId} at ${body.data.createdAt}`;
    default: {
      const unhandled: never = body;
      return unhandled;
    }
  }
}

/** The Standard Webhooks headers are typed parameters of every webhook. */
export type DeliveryHeaders = Assert<
  Equals<
    webhooks['ORDER_CREATED']['post']['parameters']['header'],
    { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string }
  >
>;
