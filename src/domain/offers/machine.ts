import type { CodeWithStatus } from '../problem-types';

/**
 * The offer state machine (docs/offers.md), pure: the `offer:{id}` workflow's Update validators
 * and the API's `nextActions` read the same rules.
 *
 * PENDING (the seller answers) ⇄ COUNTERED (whoever did not counter last answers) → ACCEPTED
 * (stock held, the buyer pays by `payBy`) → PAID; or DECLINED, WITHDRAWN, EXPIRED (nobody
 * answered in time) and LAPSED (accepted, not paid in time).
 */
export const OFFER_STATUSES = ['PENDING', 'COUNTERED', 'ACCEPTED', 'DECLINED', 'WITHDRAWN', 'EXPIRED', 'PAID', 'LAPSED'] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];

/** What an offer's history records: the parties' moves, and the service's own (auto-…, expire, lapse, end, pay). */
export const OFFER_HISTORY_ACTIONS = [
  'offer',
  'counter',
  'accept',
  'decline',
  'withdraw',
  'auto-accept',
  'auto-decline',
  'expire',
  'lapse',
  'end',
  'pay',
] as const;
export type OfferHistoryAction = (typeof OFFER_HISTORY_ACTIONS)[number];

/** Still being negotiated: someone's answer is awaited and the offer expires without one. */
export const NEGOTIATING: readonly OfferStatus[] = ['PENDING', 'COUNTERED'];
/** Not over: negotiating, or accepted and awaiting payment. One per buyer and listing. */
export const OPEN: readonly OfferStatus[] = [...NEGOTIATING, 'ACCEPTED'];

export type OfferParty = 'BUYER' | 'SELLER';
export const OFFER_ACTIONS = ['accept', 'decline', 'counter', 'withdraw'] as const;
export type OfferActionName = (typeof OFFER_ACTIONS)[number];

/** One party's move, as the workflow's `act` Update takes it. */
export interface OfferAction {
  party: OfferParty;
  action: OfferActionName;
  /** A counter's price per unit (pence). */
  unitPrice?: number;
  /** A buyer's counter may change the quantity. */
  quantity?: number;
}

/** What the workflow keeps of an offer: enough to validate a move. */
export interface OfferState {
  status: OfferStatus;
  /** Whose answer is awaited while negotiating; null otherwise. */
  turn: OfferParty | null;
  unitPrice: number;
  quantity: number;
}

/** Why a move is refused: 409 (not now) or 422 (never, as sent). */
export type OfferRefusal = ({ kind: 'conflict'; code: CodeWithStatus<409> } | { kind: 'unprocessable'; code: CodeWithStatus<422> }) & {
  message: string;
};

/** The actions `party` may take on an offer in `state` (what `nextActions` lists). */
export function allowedActions(state: OfferState, party: OfferParty): OfferActionName[] {
  if (!NEGOTIATING.includes(state.status)) return [];
  const answering = state.turn === party ? (['accept', 'decline', 'counter'] as OfferActionName[]) : [];
  return party === 'BUYER' ? [...answering, 'withdraw'] : answering;
}

/** Null when `a` may be applied to `state`; the refusal otherwise. */
export function offerRefusal(state: OfferState, a: OfferAction): OfferRefusal | null {
  if (!NEGOTIATING.includes(state.status)) {
    return { kind: 'conflict', code: 'offer-closed', message: `The offer is ${state.status.toLowerCase()}; it takes no more actions.` };
  }
  if (a.action === 'withdraw' && a.party !== 'BUYER') {
    return { kind: 'unprocessable', code: 'offer-action-not-allowed', message: 'Only the buyer withdraws an offer.' };
  }
  if (a.action !== 'withdraw' && state.turn !== a.party) {
    return { kind: 'conflict', code: 'offer-not-your-turn', message: 'The offer awaits the other party’s answer.' };
  }
  if (a.action === 'counter') {
    if (a.unitPrice === undefined) {
      return { kind: 'unprocessable', code: 'offer-counter-price-required', message: 'A counter names its `unitPrice`.' };
    }
    if (a.quantity !== undefined && a.party !== 'BUYER') {
      return { kind: 'unprocessable', code: 'offer-action-not-allowed', message: 'Only the buyer changes the quantity.' };
    }
    if (a.unitPrice === state.unitPrice) {
      return { kind: 'unprocessable', code: 'offer-counter-unchanged', message: 'A counter must differ from the last price.' };
    }
  }
  return null;
}
