import type { DataSource, EntityManager } from 'typeorm';
import {
  NEGOTIATING,
  offerRefusal,
  type OfferAction,
  type OfferHistoryAction,
  type OfferRefusal,
  type OfferState,
} from '../../domain/offers/machine';
import { placeHolds, releaseHolds } from '../checkout/holds';
import {
  emitOfferEvent,
  lockOffer,
  notifyParties,
  type OfferChangeStarts,
  readListing,
  stateOf,
  writeOffer,
  type OfferActor,
  type OfferHistoryEntry,
  type OfferListing,
  type OfferRow,
  type OfferWrite,
} from './offer-rows';

/** What a write of the offer workflow answers: the state after it, its running deadline, and any refusal. */
export interface OfferOutcome {
  /** Null: the offer does not exist (its creation rolled back). */
  state: OfferState | null;
  /**
   * How long until the running deadline (`expiresAt` while negotiating, `payBy` once accepted),
   * by the database's clock; null when over. Relative, so the workflow's timer does not depend on
   * the worker's clock agreeing with the database's.
   */
  remainingMs: number | null;
  refusal?: OfferRefusal;
}

/** One write asked by the workflow: `changeId` makes a retried activity a no-op. */
export interface OfferChange {
  offerId: string;
  changeId: string;
  action?: OfferAction;
}

export interface OfferPeriods {
  expirySeconds: number;
  paySeconds: number;
}

const deadlineOf = (o: Pick<OfferRow, 'status' | 'expiresAt' | 'payBy'>): Date | null =>
  NEGOTIATING.includes(o.status) ? o.expiresAt : o.status === 'ACCEPTED' ? o.payBy : null;

const outcomeOf = (o: OfferRow, at: Date, refusal?: OfferRefusal): OfferOutcome => {
  const deadline = deadlineOf(o);
  return { state: stateOf(o), remainingMs: deadline ? deadline.getTime() - at.getTime() : null, ...(refusal ? { refusal } : {}) };
};

/** The transaction's time by the database's clock: every timestamp of one write. */
async function dbNow(tx: EntityManager): Promise<Date> {
  const [{ now }]: [{ now: Date }] = await tx.query(`SELECT now()`);
  return now;
}

const MISSING: OfferOutcome = { state: null, remainingMs: null };

const entry = (
  by: OfferActor,
  action: OfferHistoryAction,
  o: { unitPrice: number; quantity: number },
  at: Date,
  extra: Partial<OfferHistoryEntry> = {},
) => ({
  by,
  action,
  unitPrice: o.unitPrice,
  quantity: o.quantity,
  at: at.toISOString(),
  ...extra,
});

/** Why the listing no longer supports an open offer at this price and quantity; null when it does. */
export function listingEnded(l: OfferListing, o: { unitPrice: number; quantity: number }): string | null {
  if (l.deleted) return 'listing-deleted';
  if (l.quantity < o.quantity) return 'listing-sold-out';
  if (l.price <= o.unitPrice) return 'listing-repriced';
  return null;
}

const ENDED_TEXT: Record<string, string> = {
  'listing-deleted': 'The listing was deleted',
  'listing-sold-out': 'The listing sold out',
  'listing-repriced': 'The listing was repriced to at most the offer',
};

/**
 * The offer's state transitions, each one transaction that locks the offer row and writes the
 * offer, its history, stock holds, the seller's webhook event and the e-mails together. Called by
 * the API (creation, payment) and by the `offer:{id}` workflow's activities; each activity write
 * carries a `changeId`, so a retried activity finds its change applied and answers the state.
 */
export class OfferEngine {
  constructor(
    private readonly db: DataSource,
    private readonly periods: OfferPeriods,
    private readonly starts: OfferChangeStarts,
  ) {}

  /** The offer's state and deadline as stored (the workflow's first read, and after `offerChanged`): ends it if its listing no longer supports it. */
  review(change: OfferChange): Promise<OfferOutcome> {
    return this.db.transaction(async (tx) => {
      const o = await lockOffer(tx, change.offerId);
      if (!o) return MISSING;
      const at = await dbNow(tx);
      if (!NEGOTIATING.includes(o.status)) return outcomeOf(o, at);
      const listing = (await readListing(tx, o.listingId))!;
      const reason = listingEnded(listing, o);
      if (!reason) return outcomeOf(o, at);
      return outcomeOf(await this.end(tx, o, reason, at, change.changeId), at);
    });
  }

  /** A party's move, checked again against the stored offer and its listing. */
  act(change: OfferChange): Promise<OfferOutcome> {
    const a = change.action!;
    return this.db.transaction(async (tx) => {
      const o = await lockOffer(tx, change.offerId);
      if (!o) return MISSING;
      const at = await dbNow(tx);
      if (o.history.some((h) => h.changeId === change.changeId)) return outcomeOf(o, at);
      const refused = offerRefusal(stateOf(o), a);
      if (refused) return outcomeOf(o, at, refused);
      const mark = { changeId: change.changeId };
      switch (a.action) {
        case 'withdraw':
        case 'decline': {
          const status = a.action === 'withdraw' ? 'WITHDRAWN' : 'DECLINED';
          const after = await this.write(
            tx,
            o,
            a.party,
            `The ${a.party.toLowerCase()} ${a.action === 'withdraw' ? 'withdrew' : 'declined'} the offer`,
            at,
            {
              status,
              turn: null,
              unitPrice: o.unitPrice,
              quantity: o.quantity,
              expiresAt: null,
              payBy: null,
              entries: [entry(a.party, a.action, o, at, mark)],
            },
          );
          return outcomeOf(after, at);
        }
        case 'counter': {
          const listing = (await readListing(tx, o.listingId))!;
          const next = { unitPrice: a.unitPrice!, quantity: a.quantity ?? o.quantity };
          const ended = listingEnded(listing, o);
          if (ended) {
            return this.endedByListing(tx, o, ended, at, change.changeId);
          }
          if (next.unitPrice >= listing.price) {
            return outcomeOf(o, at, {
              kind: 'unprocessable',
              code: 'offer-not-below-price',
              message: 'An offer must be below the listing price.',
            });
          }
          if (next.quantity > listing.quantity) {
            return outcomeOf(o, at, { kind: 'unprocessable', code: 'offer-quantity-unavailable', message: 'The listing has fewer units.' });
          }
          const countered: OfferWrite = {
            status: 'COUNTERED',
            turn: a.party === 'BUYER' ? 'SELLER' : 'BUYER',
            ...next,
            expiresAt: new Date(at.getTime() + this.periods.expirySeconds * 1000),
            payBy: null,
            entries: [entry(a.party, 'counter', next, at, mark)],
          };
          if (a.party === 'BUYER') return outcomeOf(await this.offered(tx, o, listing, countered, at), at);
          return outcomeOf(await this.write(tx, o, 'SELLER', 'The seller countered', at, countered), at);
        }
        case 'accept': {
          const listing = (await readListing(tx, o.listingId))!;
          const ended = listingEnded(listing, o);
          if (ended) {
            return this.endedByListing(tx, o, ended, at, change.changeId);
          }
          const accepted = await this.accept(tx, o, a.party, at, [entry(a.party, 'accept', o, at, mark)]);
          if (accepted) return outcomeOf(accepted, at);
          // The hold waited on the listing row: read it again, a deletion or sale may have just committed.
          const endedMeanwhile = listingEnded((await readListing(tx, o.listingId))!, o);
          if (endedMeanwhile) {
            return this.endedByListing(tx, o, endedMeanwhile, at, change.changeId);
          }
          return outcomeOf(o, at, {
            kind: 'conflict',
            code: 'offer-stock-unavailable',
            message: 'Other buyers hold or bought the units this offer needs; it stays open.',
          });
        }
      }
    });
  }

  /** The answer did not come in time: a negotiating offer expires. */
  expire(change: OfferChange): Promise<OfferOutcome> {
    return this.db.transaction(async (tx) => {
      const o = await lockOffer(tx, change.offerId);
      if (!o) return MISSING;
      const at = await dbNow(tx);
      if (!NEGOTIATING.includes(o.status)) return outcomeOf(o, at);
      return outcomeOf(
        await this.write(tx, o, 'SYSTEM', 'Nobody answered in time', at, {
          status: 'EXPIRED',
          turn: null,
          unitPrice: o.unitPrice,
          quantity: o.quantity,
          expiresAt: null,
          payBy: null,
          entries: [entry('SYSTEM', 'expire', o, at, { changeId: change.changeId })],
        }),
        at,
      );
    });
  }

  /**
   * The accepted offer was not paid in time: its open checkout expires, its hold is released and
   * it LAPSES. The checkout session is taken first, then the offer (the lock order of a payment),
   * so a payment racing this either committed first (the offer reads PAID) or finds the session expired.
   */
  lapse(change: OfferChange): Promise<OfferOutcome> {
    return this.db.transaction(async (tx) => {
      const [sessions]: [Array<{ id: string }>] = await tx.query(
        `UPDATE checkout_sessions SET status = 'EXPIRED', updated_at = now() WHERE offer_id = $1 AND status = 'OPEN' RETURNING id`,
        [change.offerId],
      );
      for (const s of sessions) await releaseHolds(tx, s.id);
      const o = await lockOffer(tx, change.offerId);
      if (!o) return MISSING;
      const at = await dbNow(tx);
      if (o.status !== 'ACCEPTED') return outcomeOf(o, at);
      await releaseHolds(tx, o.id);
      return outcomeOf(
        await this.write(tx, o, 'SYSTEM', 'The accepted offer was not paid in time', at, {
          status: 'LAPSED',
          turn: null,
          unitPrice: o.unitPrice,
          quantity: o.quantity,
          expiresAt: null,
          payBy: null,
          entries: [entry('SYSTEM', 'lapse', o, at, { changeId: change.changeId })],
        }),
        at,
      );
    });
  }

  /**
   * A buyer's price reached the seller (a new offer, or a counter): OFFER_RECEIVED, then the
   * listing's thresholds act at once and say so in the history: below `autoDeclineBelow` it is
   * declined, at or above `autoAcceptAt` accepted (when the units can be held; else it waits for
   * the seller). Used by creation too, so the rule is written once.
   */
  async offered(tx: EntityManager, o: OfferRow, listing: OfferListing, w: OfferWrite, at: Date): Promise<OfferRow> {
    const after = await this.write(tx, o, 'BUYER', o.history.length === 0 ? 'A buyer made an offer' : 'The buyer countered', at, w, true);
    const auto = { unitPrice: w.unitPrice, quantity: w.quantity };
    if (listing.autoDeclineBelow !== null && w.unitPrice < listing.autoDeclineBelow) {
      return this.write(
        tx,
        after,
        'SYSTEM',
        'Declined automatically: below the seller’s threshold',
        at,
        {
          ...auto,
          status: 'DECLINED',
          turn: null,
          expiresAt: null,
          payBy: null,
          endedReason: 'auto-decline',
          entries: [entry('SYSTEM', 'auto-decline', auto, at, { reason: 'auto-decline' })],
        },
        false,
        'auto-decline',
      );
    }
    if (listing.autoAcceptAt !== null && w.unitPrice >= listing.autoAcceptAt) {
      const accepted = await this.accept(
        tx,
        after,
        'SYSTEM',
        at,
        [entry('SYSTEM', 'auto-accept', auto, at, { reason: 'auto-accept' })],
        'auto-accept',
      );
      if (accepted) return accepted;
    }
    return after;
  }

  /** Holds the units at the agreed price until `payBy`; null when they are not available. */
  private async accept(
    tx: EntityManager,
    o: OfferRow,
    by: OfferActor,
    at: Date,
    entries: OfferHistoryEntry[],
    reason?: string,
  ): Promise<OfferRow | null> {
    const payBy = new Date(at.getTime() + this.periods.paySeconds * 1000);
    const failed = await placeHolds(tx, o.id, [{ listingId: o.listingId, quantity: o.quantity }], payBy);
    if (failed.length > 0) return null;
    const what = by === 'SYSTEM' ? 'Accepted automatically at the seller’s threshold' : `The ${by.toLowerCase()} accepted the offer`;
    return this.write(
      tx,
      o,
      by,
      `${what}; the buyer pays by ${payBy.toISOString()}`,
      at,
      { status: 'ACCEPTED', turn: null, unitPrice: o.unitPrice, quantity: o.quantity, expiresAt: null, payBy, entries },
      false,
      reason,
    );
  }

  /** The listing no longer supports the offer: it ends DECLINED, with the notice in its history. */
  /** A move on an offer whose listing has ended: the offer ends with it, and the move is refused. */
  private async endedByListing(tx: EntityManager, o: OfferRow, reason: string, at: Date, changeId: string): Promise<OfferOutcome> {
    return outcomeOf(await this.end(tx, o, reason, at, changeId), at, {
      kind: 'conflict',
      code: 'offer-listing-ended',
      message: `${ENDED_TEXT[reason]}: the offer has ended.`,
    });
  }

  private end(tx: EntityManager, o: OfferRow, reason: string, at: Date, changeId: string): Promise<OfferRow> {
    return this.write(
      tx,
      o,
      'SYSTEM',
      `${ENDED_TEXT[reason]}: the offer has ended`,
      at,
      {
        status: 'DECLINED',
        turn: null,
        unitPrice: o.unitPrice,
        quantity: o.quantity,
        expiresAt: null,
        payBy: null,
        endedReason: reason,
        entries: [entry('SYSTEM', 'end', o, at, { reason, changeId })],
      },
      false,
      reason,
    );
  }

  /** Writes the change with its event and e-mails; answers the offer as it now is. */
  private async write(
    tx: EntityManager,
    o: OfferRow,
    by: OfferActor,
    what: string,
    at: Date,
    w: OfferWrite,
    received = false,
    reason?: string,
  ): Promise<OfferRow> {
    await writeOffer(tx, o.id, w);
    await emitOfferEvent(tx, o, at, { ...w, reason, received });
    await notifyParties(tx, o, by, what, w, this.starts);
    return {
      ...o,
      status: w.status,
      turn: w.turn,
      unitPrice: w.unitPrice,
      quantity: w.quantity,
      expiresAt: w.expiresAt,
      payBy: w.payBy,
      endedReason: w.endedReason ?? o.endedReason,
      history: [...o.history, ...w.entries],
    };
  }
}
