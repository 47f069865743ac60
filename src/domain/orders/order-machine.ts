/**
 * The status machines of checkout: checkout sessions, purchases, orders and order items, as
 * tables (see ../state-table.ts). The services' conditional UPDATEs take their `from` and `to`
 * statuses from here, and `nextActions` tells a view what a party may do with an order now.
 * Pure: services, views and tests may all import it. The rules are described in
 * docs/checkout-orders.md.
 */
import { actionsAllowed, allows, type StateTable } from '../state-table';

export const CHECKOUT_STATUSES = ['OPEN', 'PAID', 'FAILED', 'EXPIRED'] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];
/** `payment`: the payment provider's outcome; `buyer`: a new checkout of the same basket; `system`: the hold expiry sweep, or a payment arriving after the hold ran out. */
export const CHECKOUT_ACTORS = ['payment', 'buyer', 'system'] as const;
export type CheckoutActor = (typeof CHECKOUT_ACTORS)[number];
export type CheckoutAction = 'pay' | 'fail' | 'expire';

/** A session is settled once: only an OPEN session can be paid, fail or expire. */
export const CHECKOUT_TRANSITIONS = {
  pay: { actors: ['payment'], from: ['OPEN'], to: 'PAID' },
  fail: { actors: ['payment'], from: ['OPEN'], to: 'FAILED' },
  // A buyer checking the same basket out again supersedes the session still open.
  expire: { actors: ['system', 'buyer'], from: ['OPEN'], to: 'EXPIRED' },
} as const satisfies StateTable<CheckoutStatus, CheckoutAction, CheckoutActor>;

export const PURCHASE_STATUSES = ['PAID', 'COMPLETED', 'CANCELLED'] as const;
export type PurchaseStatus = (typeof PURCHASE_STATUSES)[number];
/** A purchase exists only once its checkout is paid. */
export const PURCHASE_INITIAL_STATUS: PurchaseStatus = 'PAID';
export const PURCHASE_ACTORS = ['system'] as const;
export type PurchaseActor = (typeof PURCHASE_ACTORS)[number];
export type PurchaseAction = 'complete' | 'cancel';

/**
 * A purchase settles once every order is settled and no case is open (order-engine.ts
 * `settlePurchase`): COMPLETED when at least one order was received, CANCELLED when nothing was
 * sold (every order cancelled or refunded in full), which refunds the buyer fee too.
 */
export const PURCHASE_TRANSITIONS = {
  complete: { actors: ['system'], from: ['PAID'], to: 'COMPLETED' },
  cancel: { actors: ['system'], from: ['PAID'], to: 'CANCELLED' },
} as const satisfies StateTable<PurchaseStatus, PurchaseAction, PurchaseActor>;

export const ORDER_STATUSES = ['ACCEPTED', 'SHIPPED', 'RECEIVED', 'CANCELLED', 'REFUNDED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
/** Orders and their items are created ACCEPTED with the purchase. */
export const ORDER_INITIAL_STATUS: OrderStatus = 'ACCEPTED';
/** Order items go through the same statuses as their order, one shipment at a time. */
export type OrderItemStatus = OrderStatus;
/** `system`: the automatic-receipt timer. */
export const ORDER_ACTORS = ['seller', 'buyer', 'system'] as const;
export type OrderActor = (typeof ORDER_ACTORS)[number];
export const ORDER_ACTIONS = ['ship', 'receive', 'dispute', 'request-cancel', 'decline-cancel', 'cancel'] as const;
export type OrderActionName = (typeof ORDER_ACTIONS)[number];

/**
 * Orders. `ship` may be repeated while items are left ACCEPTED; the order becomes SHIPPED with
 * the shipment that leaves none (ORDER_ITEM_TRANSITIONS.ship moves the items). `dispute` opens a
 * case and changes no status. Before shipment the buyer may `request-cancel`, once (the seller is
 * told; no status changes, the request has its own state: `CancellationRequestStatus`), the seller
 * may `decline-cancel` a pending request, and the seller may `cancel` (with or without a request):
 * the order and its items are CANCELLED and refunded in full (docs/money.md). A cancelled order
 * has no actions.
 * A live order whose refunds reach what was paid for it closes as REFUNDED (`ORDER_REFUNDED`), with
 * no actions either: nothing to ship, cancel, receive or dispute any more.
 */
const LIVE_ORDER_STATUSES = ['ACCEPTED', 'SHIPPED', 'RECEIVED'] as const;
/** Where a refund in full moves a live order and its items that are not cancelled (money/refunds.ts). */
export const ORDER_REFUNDED = { from: LIVE_ORDER_STATUSES, to: 'REFUNDED' } as const satisfies {
  from: readonly OrderStatus[];
  to: OrderStatus;
};
export const ORDER_TRANSITIONS = {
  ship: { actors: ['seller'], from: ['ACCEPTED'], to: 'SHIPPED' },
  receive: { actors: ['buyer', 'system'], from: ['SHIPPED'], to: 'RECEIVED' },
  dispute: { actors: ['seller', 'buyer'], from: LIVE_ORDER_STATUSES, to: null },
  'request-cancel': { actors: ['buyer'], from: ['ACCEPTED'], to: null },
  'decline-cancel': { actors: ['seller'], from: ['ACCEPTED'], to: null },
  cancel: { actors: ['seller'], from: ['ACCEPTED'], to: 'CANCELLED' },
} as const satisfies StateTable<OrderStatus, OrderActionName, OrderActor>;

/** Order items: the items a `ship` or `dispute` may name, and where `ship` and `receive` move them. */
export const ORDER_ITEM_TRANSITIONS = {
  ship: { actors: ['seller'], from: ['ACCEPTED'], to: 'SHIPPED' },
  receive: { actors: ['buyer', 'system'], from: ['SHIPPED'], to: 'RECEIVED' },
  dispute: { actors: ['seller', 'buyer'], from: LIVE_ORDER_STATUSES, to: null },
  'request-cancel': { actors: ['buyer'], from: ['ACCEPTED'], to: null },
  'decline-cancel': { actors: ['seller'], from: ['ACCEPTED'], to: null },
  cancel: { actors: ['seller'], from: ['ACCEPTED'], to: 'CANCELLED' },
} as const satisfies StateTable<OrderItemStatus, OrderActionName, OrderActor>;

/** Whether `actor` may ever take `action` on an order (in some status). */
export function orderActorMay(actor: OrderActor, action: OrderActionName): boolean {
  return (ORDER_TRANSITIONS[action].actors as readonly OrderActor[]).includes(actor);
}

/** Whether `actor` may take `action` on an order in `status`. */
export function orderAllows(status: OrderStatus, actor: OrderActor, action: OrderActionName): boolean {
  return allows<OrderStatus, OrderActionName, OrderActor>(ORDER_TRANSITIONS, status, actor, action);
}

/**
 * A buyer's cancellation request, asked once before shipment: PENDING until the seller cancels
 * the order (ACCEPTED), declines it or ships (DECLINED).
 */
export type CancellationRequestStatus = 'PENDING' | 'ACCEPTED' | 'DECLINED';

/** The request's state from the order's timestamps: answered by the cancellation, or declined (explicitly or by shipping). */
export function cancellationRequestStatus(t: {
  requestedAt: Date | null;
  declinedAt: Date | null;
  cancelledAt: Date | null;
}): CancellationRequestStatus | null {
  if (!t.requestedAt) return null;
  return t.cancelledAt ? 'ACCEPTED' : t.declinedAt ? 'DECLINED' : 'PENDING';
}

/** Whether the cancellation request (or its absence) lets `action` through: asked once, declined while pending. */
export function cancellationAllows(action: OrderActionName, request: CancellationRequestStatus | null): boolean {
  if (action === 'request-cancel') return request === null;
  if (action === 'decline-cancel') return request === 'PENDING';
  return true;
}

/**
 * The actions `actor` may take on an order in `status` now, given its cancellation request. A
 * `dispute` can still be refused for items already in an open case, and ownership is checked in SQL.
 */
export function nextActions(status: OrderStatus, actor: OrderActor, request: CancellationRequestStatus | null): OrderActionName[] {
  return actionsAllowed(ORDER_TRANSITIONS, status, actor).filter((action) => cancellationAllows(action, request));
}
