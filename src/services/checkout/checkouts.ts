import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import type { Baskets } from '../basket/baskets';
import { conflict, DomainError, notFound } from '../errors';
import type { OfferChangeStarts } from '../offers/offer-rows';
import { commitCheckout, type SessionSnapshot } from './commit';
import { placeHolds, releaseHolds } from './holds';
import { CHECKOUT_TRANSITIONS, type CheckoutStatus } from '../../domain/orders/order-machine';
import type { CodeWithStatus } from '../../domain/problem-types';

export interface PaymentPage {
  id: string;
  status: CheckoutStatus;
  total: number;
  expiresAt: Date;
}

export type PaymentResult = { outcome: 'paid'; redirect: string } | { outcome: 'failed' };

/** A session's hold has run out: from then on it can only expire, whether or not the sweep has reached it. */
const HOLD_RUN_OUT = `expires_at <= now()`;

/**
 * A session's status as of now: OPEN past its hold reads EXPIRED, whether or not the expiry sweep
 * has reached it yet (docs/checkout-orders.md, "Hold expiry"). For every query that shows one.
 */
export const SESSION_STATUS_NOW = `CASE WHEN status = 'OPEN' AND ${HOLD_RUN_OUT} THEN 'EXPIRED' ELSE status END`;

/** Checkout refusals name the listings that caused them (spec: body `{listingIds}`). */
const refused = (code: CodeWithStatus<409>, message: string, listingIds: string[]) =>
  new DomainError('conflict', code, message, { listingIds });

/**
 * Moves open sessions (one by id, or a basket's) to a final unpaid status and frees their holds;
 * with `onlyRunOut`, only a session whose hold has run out (`expires_at` passed).
 */
async function closeOpenSessions(
  tx: EntityManager,
  which: { sessionId: string } | { basketId: string },
  action: 'fail' | 'expire',
  onlyRunOut = false,
): Promise<boolean> {
  const [column, value] = 'sessionId' in which ? ['id', which.sessionId] : ['basket_id', which.basketId];
  const { from, to } = CHECKOUT_TRANSITIONS[action];
  const [rows]: [Array<{ id: string }>] = await tx.query(
    `UPDATE checkout_sessions SET status = $2, updated_at = now()
      WHERE ${column} = $1 AND status = ANY($3) ${onlyRunOut ? `AND ${HOLD_RUN_OUT}` : ''} RETURNING id`,
    [value, to, from],
  );
  for (const { id } of rows) await releaseHolds(tx, id);
  return rows.length > 0;
}

/**
 * The hold expiry sweep (docs/checkout-orders.md, "Hold expiry"): expires up to `limit` unpaid
 * sessions whose hold has run out, oldest first, and releases their holds. One transaction per
 * session, locking it and then its listings (never a listing before a session, like every
 * other path); a session paid or superseded meanwhile is left alone. Returns how many it expired.
 */
export async function expireRunOutCheckouts(db: DataSource, limit: number): Promise<number> {
  const due: Array<{ id: string }> = await db.query(
    `SELECT id FROM checkout_sessions WHERE status = 'OPEN' AND ${HOLD_RUN_OUT} ORDER BY expires_at LIMIT $1`,
    [limit],
  );
  let expired = 0;
  for (const { id } of due) {
    if (await db.transaction((tx) => closeOpenSessions(tx, { sessionId: id }, 'expire', true))) expired++;
  }
  return expired;
}

/**
 * Expires every open checkout holding units of the seller's listings (an operator suspended the
 * seller), releasing the holds, so those payments are refused (409 `checkout-closed`). One
 * transaction per session, in the lock order basket → session → listings.
 */
export async function closeSellerCheckouts(db: DataSource, sellerId: string): Promise<void> {
  const sessions: Array<{ id: string; basket_id: string }> = await db.query(
    `SELECT DISTINCT c.id, c.basket_id FROM listing_holds h
       JOIN listings l ON l.id = h.listing_id JOIN checkout_sessions c ON c.id = h.checkout_id
      WHERE l.seller_id = $1 AND h.released_at IS NULL AND c.status = 'OPEN'`,
    [sellerId],
  );
  for (const session of sessions) {
    await db.transaction(async (tx) => {
      await tx.query(`SELECT id FROM baskets WHERE id = $1 FOR UPDATE`, [session.basket_id]);
      await closeOpenSessions(tx, { sessionId: session.id }, 'expire');
    });
  }
}

const SESSION_COLUMNS = `id, basket_id AS "basketId", offer_id AS "offerId", buyer_id AS "buyerId", lines, sellers, subtotal, delivery, fee, total,
  delivery_address AS "deliveryAddress"`;

/**
 * Checkout sessions: from basket to held stock and a payment session, and from a payment
 * outcome to a purchase or released holds. Every transition is a conditional UPDATE on the
 * session's status, so a replayed outcome, the expiry sweep and a payment can never both act.
 * A session is over when its hold runs out, whether or not the sweep has reached it yet: the
 * payment page shows it EXPIRED and a payment expires it there and then (docs/checkout-orders.md).
 */
export class Checkouts {
  constructor(
    private readonly db: DataSource,
    private readonly baskets: Baskets,
    private readonly options: { holdSeconds: number; publicBaseUrl: string; sellerFeeBps: number },
    /** What a payment tells the offers it pays or sells out (src/modules/offers.ts). */
    private readonly offerChanges: OfferChangeStarts,
  ) {}

  async start(userId: string, basketId: string, successUrl: string): Promise<{ url: string }> {
    // Unguessable (122 random bits): the payment page is public and the id is its capability.
    const sessionId = randomUUID();
    const expiresAt = new Date(Date.now() + this.options.holdSeconds * 1000);
    // Priced on the pool, outside the transaction: the holds below are what guarantee stock, and
    // the transaction never waits for a second connection (which could exhaust the pool).
    const basket = await this.baskets.find(this.db, userId, basketId);
    const priced = await this.baskets.price(this.db, basket);
    if (priced.sellers.length === 0) throw refused('basket-empty', 'The basket has no listings to check out.', []);
    const deliveryAddress = basket.deliveryAddress;
    if (!deliveryAddress) {
      throw refused('delivery-address-required', 'Set a delivery address (PUT /basket/{id}/delivery) before checking out.', []);
    }
    if (priced.failingListingIds.length > 0) {
      throw refused('listings-unavailable', 'Some listings cannot be bought as they are in the basket.', priced.failingListingIds);
    }
    await this.db.transaction(async (tx) => {
      // Locking the basket serialises two checkouts of one basket (and one that races its commit).
      await this.baskets.find(tx, userId, basketId, true);
      // A new checkout of the same basket supersedes an unpaid earlier one and frees its holds.
      await closeOpenSessions(tx, { basketId: basket.id }, 'expire');
      const session: Omit<SessionSnapshot, 'id'> = {
        basketId: basket.id,
        buyerId: userId,
        lines: priced.sellers.flatMap((s) => s.lines),
        sellers: priced.sellers.map((s) => ({
          sellerId: s.sellerId,
          subtotal: s.subtotal,
          deliveryOption: s.deliveryOption!,
          deliveryCharge: s.deliveryCharge,
          total: s.total,
        })),
        subtotal: priced.subtotal,
        delivery: priced.delivery,
        fee: priced.fee,
        total: priced.total,
        deliveryAddress,
      };
      await tx.query(
        `INSERT INTO checkout_sessions (id, basket_id, buyer_id, status, success_url, lines, sellers, subtotal, delivery, fee, total,
                                        delivery_address, expires_at)
         VALUES ($1, $2, $3, 'OPEN', $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [
          sessionId,
          session.basketId,
          userId,
          successUrl,
          JSON.stringify(session.lines),
          JSON.stringify(session.sellers),
          session.subtotal,
          session.delivery,
          session.fee,
          session.total,
          JSON.stringify(session.deliveryAddress),
          expiresAt,
        ],
      );
      // The holds last: a popular listing's row stays locked from its hold until this commits, and
      // every other checkout and payment of it waits that long.
      const failed = await placeHolds(tx, sessionId, session.lines, expiresAt);
      if (failed.length > 0) throw refused('listings-unavailable', 'Some listings were taken by other buyers just now.', failed);
    });
    return { url: `${this.options.publicBaseUrl}/pay/${sessionId}` };
  }

  async paymentPage(sessionId: string): Promise<PaymentPage> {
    const [row]: PaymentPage[] = await this.db.query(
      `SELECT id, ${SESSION_STATUS_NOW} AS status, total, expires_at AS "expiresAt" FROM checkout_sessions WHERE id = $1`,
      [sessionId],
    );
    if (!row) throw notFound('Checkout session');
    return row;
  }

  /**
   * Applies the payment provider's outcome. Success commits the purchase once; the same
   * confirmation again finds the purchase and answers the same redirect, changing nothing.
   */
  async settle(sessionId: string, outcome: 'success' | 'failure'): Promise<PaymentResult> {
    const result = await this.db.transaction(async (tx): Promise<PaymentResult | null> => {
      // Basket first, then session, then listings: the lock order of start(), so a re-checkout of
      // the basket racing this payment waits instead of deadlocking.
      await tx.query(`SELECT b.id FROM baskets b JOIN checkout_sessions c ON c.basket_id = b.id WHERE c.id = $1 FOR UPDATE OF b`, [
        sessionId,
      ]);
      // A hold that has run out is over, even before the sweep reaches it: no payment after it.
      await closeOpenSessions(tx, { sessionId }, 'expire', true);
      return this.applyOutcome(tx, sessionId, outcome);
    });
    return result ?? this.replay(sessionId, outcome);
  }

  private async applyOutcome(tx: EntityManager, sessionId: string, outcome: 'success' | 'failure'): Promise<PaymentResult | null> {
    if (outcome === 'failure') return (await closeOpenSessions(tx, { sessionId }, 'fail')) ? { outcome: 'failed' } : null;
    const [[session]]: [SessionSnapshot[]] = await tx.query(
      `UPDATE checkout_sessions SET status = $2, updated_at = now() WHERE id = $1 AND status = ANY($3) RETURNING ${SESSION_COLUMNS}`,
      [sessionId, CHECKOUT_TRANSITIONS.pay.to, CHECKOUT_TRANSITIONS.pay.from],
    );
    if (!session) return null;
    const purchaseId = await commitCheckout(tx, session, { sellerFeeBps: this.options.sellerFeeBps, offerChanges: this.offerChanges });
    return { outcome: 'paid', redirect: await this.redirectOf(tx, sessionId, purchaseId) };
  }

  /** A repeated or late outcome: answer what already happened, or refuse. */
  private async replay(sessionId: string, outcome: 'success' | 'failure'): Promise<PaymentResult> {
    const [row]: Array<{ status: CheckoutStatus; purchase_id: string | null }> = await this.db.query(
      `SELECT status, purchase_id FROM checkout_sessions WHERE id = $1`,
      [sessionId],
    );
    if (!row) throw notFound('Checkout session');
    if (row.status === 'PAID' && outcome === 'success') {
      return { outcome: 'paid', redirect: await this.redirectOf(this.db, sessionId, row.purchase_id!) };
    }
    if (row.status === 'FAILED' && outcome === 'failure') return { outcome: 'failed' };
    throw conflict('checkout-closed', `This checkout is already ${row.status.toLowerCase()}.`);
  }

  private async redirectOf(db: DataSource | EntityManager, sessionId: string, purchaseId: string): Promise<string> {
    const [{ success_url }]: [{ success_url: string }] = await db.query(`SELECT success_url FROM checkout_sessions WHERE id = $1`, [
      sessionId,
    ]);
    const url = new URL(success_url);
    url.searchParams.set('purchase', purchaseId);
    return url.toString();
  }
}
