import { actionsAllowed, allows, statusAfter, type StateTable } from '../../src/domain/state-table';
import {
  CHECKOUT_ACTORS,
  CHECKOUT_STATUSES,
  CHECKOUT_TRANSITIONS,
  nextActions,
  orderActorMay,
  orderAllows,
  ORDER_ACTIONS,
  ORDER_ACTORS,
  ORDER_ITEM_TRANSITIONS,
  ORDER_STATUSES,
  ORDER_TRANSITIONS,
  PURCHASE_ACTORS,
  PURCHASE_STATUSES,
  PURCHASE_TRANSITIONS,
  type CheckoutActor,
  type CheckoutStatus,
  type OrderActionName,
  type OrderActor,
  type OrderStatus,
  type PurchaseActor,
  type PurchaseStatus,
} from '../../src/domain/orders/order-machine';

/**
 * The expected machines, written out by hand independently of the tables: per status, per
 * actor, the allowed actions and the status each leads to. Anything not listed must be refused.
 * `Record<Status, …>` makes a new status a compile error here until its row is written.
 */
type Expected<S extends string, A extends string, R extends string> = Record<S, Partial<Record<R, Partial<Record<A, S>>>>>;

const ORDERS: Expected<OrderStatus, OrderActionName, OrderActor> = {
  ACCEPTED: {
    seller: { ship: 'SHIPPED', dispute: 'ACCEPTED', 'decline-cancel': 'ACCEPTED', cancel: 'CANCELLED' },
    buyer: { dispute: 'ACCEPTED', 'request-cancel': 'ACCEPTED' },
  },
  SHIPPED: { seller: { dispute: 'SHIPPED' }, buyer: { receive: 'RECEIVED', dispute: 'SHIPPED' }, system: { receive: 'RECEIVED' } },
  RECEIVED: { seller: { dispute: 'RECEIVED' }, buyer: { dispute: 'RECEIVED' } },
  CANCELLED: {},
  // Refunded in full: nothing left to ship, receive, dispute or cancel.
  REFUNDED: {},
};

const CHECKOUTS: Expected<CheckoutStatus, keyof typeof CHECKOUT_TRANSITIONS, CheckoutActor> = {
  OPEN: { payment: { pay: 'PAID', fail: 'FAILED' }, buyer: { expire: 'EXPIRED' }, system: { expire: 'EXPIRED' } },
  PAID: {},
  FAILED: {},
  EXPIRED: {},
};

const PURCHASES: Expected<PurchaseStatus, keyof typeof PURCHASE_TRANSITIONS, PurchaseActor> = {
  PAID: { system: { complete: 'COMPLETED', cancel: 'CANCELLED' } },
  COMPLETED: {},
  // Nothing of it was sold: every order cancelled or refunded in full.
  CANCELLED: {},
};

/** Every (status, actor, action) of a table, with the expected status after it or `null` when refused. */
function matrix<S extends string, A extends string, R extends string>(
  table: StateTable<S, A, R>,
  statuses: readonly S[],
  actors: readonly R[],
  expected: Expected<S, A, R>,
): Array<[S, R, A, S | null]> {
  const actions = Object.keys(table) as A[];
  return statuses.flatMap((s) => actors.flatMap((r) => actions.map((a): [S, R, A, S | null] => [s, r, a, expected[s][r]?.[a] ?? null])));
}

describe.each([
  ['order', ORDER_TRANSITIONS, ORDER_STATUSES, ORDER_ACTORS, ORDERS],
  // Items move with their order's actions: the same allowed and refused moves, one shipment at a time.
  ['order item', ORDER_ITEM_TRANSITIONS, ORDER_STATUSES, ORDER_ACTORS, ORDERS],
  ['checkout session', CHECKOUT_TRANSITIONS, CHECKOUT_STATUSES, CHECKOUT_ACTORS, CHECKOUTS],
  ['purchase', PURCHASE_TRANSITIONS, PURCHASE_STATUSES, PURCHASE_ACTORS, PURCHASES],
] as Array<[string, StateTable<string, string, string>, readonly string[], readonly string[], Expected<string, string, string>]>)(
  'the %s table',
  (_name, table, statuses, actors, expected) => {
    it('has an expectation for exactly its statuses, and only known actors and statuses in its rows', () => {
      expect(Object.keys(expected).sort()).toEqual([...statuses].sort());
      for (const t of Object.values(table)) {
        expect(t.actors.every((r) => actors.includes(r))).toBe(true);
        expect(t.from.every((s) => statuses.includes(s))).toBe(true);
        if (t.to !== null) expect(statuses).toContain(t.to);
      }
    });

    const rows = matrix(table, statuses, actors, expected);
    it('covers every status, actor and action', () => {
      expect(rows).toHaveLength(statuses.length * actors.length * Object.keys(table).length);
    });

    it.each(rows)('%s, %s, %s → %s', (status, actor, action, after) => {
      expect(allows(table, status, actor, action)).toBe(after !== null);
      if (after !== null) expect(statusAfter(table, status, action)).toBe(after);
    });
  },
);

describe('nextActions', () => {
  it('lists the order actions in the table order', () => {
    expect(Object.keys(ORDER_TRANSITIONS)).toEqual([...ORDER_ACTIONS]);
  });

  const cases = ORDER_STATUSES.flatMap((s) => ORDER_ACTORS.map((r): [OrderStatus, OrderActor] => [s, r]));
  it.each(cases)('%s order, %s: exactly the allowed actions, refined by the cancellation request', (status, actor) => {
    const expected = ORDER_ACTIONS.filter((a) => ORDERS[status][actor]?.[a] !== undefined);
    expect(actionsAllowed(ORDER_TRANSITIONS, status, actor)).toEqual(expected);
    // Asked once; declined only while pending.
    expect(nextActions(status, actor, null)).toEqual(expected.filter((a) => a !== 'decline-cancel'));
    expect(nextActions(status, actor, 'PENDING')).toEqual(expected.filter((a) => a !== 'request-cancel'));
    for (const answered of ['ACCEPTED', 'DECLINED'] as const)
      expect(nextActions(status, actor, answered)).toEqual(expected.filter((a) => a !== 'request-cancel' && a !== 'decline-cancel'));
  });

  const pairs = ORDER_ACTORS.flatMap((r) => ORDER_ACTIONS.map((a): [OrderActor, OrderActionName] => [r, a]));
  it.each(pairs)('%s may %s in some status exactly when the expected table says so; orderAllows agrees per status', (actor, action) => {
    expect(orderActorMay(actor, action)).toBe(ORDER_STATUSES.some((s) => ORDERS[s][actor]?.[action] !== undefined));
    for (const s of ORDER_STATUSES) expect(orderAllows(s, actor, action)).toBe(ORDERS[s][actor]?.[action] !== undefined);
  });

  it('gives each party its own actions at each step of an order', () => {
    expect(nextActions('ACCEPTED', 'seller', null)).toEqual(['ship', 'dispute', 'cancel']);
    expect(nextActions('ACCEPTED', 'buyer', null)).toEqual(['dispute', 'request-cancel']);
    expect(nextActions('ACCEPTED', 'seller', 'PENDING')).toEqual(['ship', 'dispute', 'decline-cancel', 'cancel']);
    expect(nextActions('ACCEPTED', 'buyer', 'PENDING')).toEqual(['dispute']);
    expect(nextActions('ACCEPTED', 'buyer', 'DECLINED')).toEqual(['dispute']);
    expect(nextActions('CANCELLED', 'buyer', 'ACCEPTED')).toEqual([]);
    expect(nextActions('SHIPPED', 'buyer', null)).toEqual(['receive', 'dispute']);
    expect(nextActions('SHIPPED', 'seller', 'DECLINED')).toEqual(['dispute']);
    expect(nextActions('RECEIVED', 'system', null)).toEqual([]);
  });
});
