/**
 * The case state machine (spec "States and transitions → Case status"), as pure functions so the
 * workflow, its Update validators and the tests share one set of rules. No I/O, no clock.
 * Decisions beyond the spec's table are documented in docs/cases.md.
 */
import type { CodeWithStatus } from '../problem-types';

export const CASE_STATUSES = ['OPEN', 'REMEDIATION', 'SETTLED', 'CLOSED', 'ESCALATED'] as const;
export type CaseStatus = (typeof CASE_STATUSES)[number];
/** Why a case is opened (a buyer's dispute, a seller's, or a chargeback). */
export const CASE_REASONS = ['SNAD', 'DAMAGED', 'WRONG_ITEM', 'NOT_RECEIVED', 'OTHER', 'CHARGEBACK'] as const;
export type CaseReason = (typeof CASE_REASONS)[number];
export const OUTCOME_TYPES = ['RETURN', 'REFUND', 'REPLACEMENT'] as const;
export type OutcomeType = (typeof OUTCOME_TYPES)[number];
export type Party = 'BUYER' | 'SELLER';
export type OutcomeStatus = 'PENDING' | 'ACCEPTED' | 'REJECTED' | 'SUPERSEDED';

export interface OutcomeState {
  id: string;
  type: OutcomeType;
  party: Party;
  status: OutcomeStatus;
}

export interface CaseState {
  status: CaseStatus;
  outcomes: OutcomeState[];
}

/** What a party proposes; the address is where a return or replacement goes. */
export interface OutcomeProposal {
  type: OutcomeType;
  amount: number;
  comment: string;
  deliveryAddress: Record<string, string> | null;
}

export type PartyAction =
  | ({ action: 'propose'; party: Party } & OutcomeProposal)
  | { action: 'accept'; party: Party; outcomeId: string }
  | { action: 'reject'; party: Party; outcomeId: string }
  | { action: 'escalate'; party: Party }
  /** The seller confirms the accepted return arrived: SETTLED → CLOSED. */
  | { action: 'resolve'; party: Party };

/** An operator's decision on an ESCALATED case (the only ways out of ESCALATED besides an agreement). */
export type OperatorDecision = { decision: 'close' } | { decision: 'remediate' };

/**
 * Why an action is refused; `kind` decides the HTTP status: 404, 409, 400 (the change's data
 * cannot be stored) or 503 (the change could not be recorded).
 */
/** Why an action is refused: a catalogued problem code of the status its kind answers with. */
export type RefusalReason =
  | { kind: 'not-found'; code: 'not-found' }
  | { kind: 'conflict'; code: CodeWithStatus<409> }
  | { kind: 'invalid'; code: CodeWithStatus<400> }
  | { kind: 'unavailable'; code: CodeWithStatus<503> };
export type Refusal = RefusalReason & { message: string };

/** Statuses the 7-day timer and party escalation apply to. */
export const ESCALATABLE: CaseStatus[] = ['OPEN', 'REMEDIATION'];

const refuse = (code: CodeWithStatus<409>, message: string): Refusal => ({ kind: 'conflict', code, message });

/** Null when the action is allowed in this state, else why not. */
export function refusal(state: CaseState, a: PartyAction): Refusal | null {
  if (state.status === 'CLOSED') return refuse('case-closed', 'The case is closed.');
  const accepted = state.outcomes.find((o) => o.status === 'ACCEPTED');
  switch (a.action) {
    case 'propose':
      // Parties negotiate in OPEN, REMEDIATION and ESCALATED; SETTLED always has an accepted outcome.
      return accepted ? refuse('outcome-accepted', 'An outcome was accepted; it cannot be changed.') : null;
    case 'accept':
    case 'reject': {
      if (accepted) return refuse('outcome-accepted', 'An outcome was accepted; it cannot be changed.');
      const outcome = state.outcomes.find((o) => o.id === a.outcomeId);
      if (!outcome) return { kind: 'not-found', code: 'not-found', message: 'Outcome was not found.' };
      if (outcome.party === a.party) return refuse('own-outcome', 'Only the opposite party may accept or reject an outcome.');
      if (outcome.status !== 'PENDING') return refuse('outcome-not-pending', `The outcome is ${outcome.status}.`);
      return null;
    }
    case 'escalate':
      return ESCALATABLE.includes(state.status) ? null : refuse('case-not-escalatable', `A ${state.status} case cannot be escalated.`);
    case 'resolve':
      if (a.party !== 'SELLER') return refuse('action-not-allowed', 'Only the seller confirms that a return arrived.');
      return state.status === 'SETTLED' ? null : refuse('case-not-settled', 'Only a settled return can be resolved.');
  }
}

export function operatorRefusal(state: CaseState): Refusal | null {
  return state.status === 'ESCALATED' ? null : refuse('case-not-escalated', 'Operators decide escalated cases only.');
}

export type CaseActionName = PartyAction['action'];
/** What a case may offer its viewer to do next: a party's action or an operator's decision (a case's `actions`). */
export type CaseViewAction = CaseActionName | OperatorDecision['decision'];
export const CASE_VIEW_ACTIONS = [
  'propose',
  'accept',
  'reject',
  'escalate',
  'resolve',
  'close',
  'remediate',
] as const satisfies ReadonlyArray<CaseViewAction>;
const PROBE_PROPOSAL: OutcomeProposal = { type: 'REFUND', amount: 0, comment: '', deliveryAddress: null };

/**
 * The actions `party` may take now: exactly those `refusal` lets through (`accept` and `reject`
 * when they are allowed on at least one outcome), so what a view lists and what the workflow's
 * validators accept cannot disagree.
 */
export function nextCaseActions(state: CaseState, party: Party): CaseActionName[] {
  const allowed = (a: PartyAction) => refusal(state, a) === null;
  const onSomeOutcome = (action: 'accept' | 'reject') => state.outcomes.some((o) => allowed({ action, party, outcomeId: o.id }));
  const candidates: Array<[CaseActionName, boolean]> = [
    ['propose', allowed({ action: 'propose', party, ...PROBE_PROPOSAL })],
    ['accept', onSomeOutcome('accept')],
    ['reject', onSomeOutcome('reject')],
    ['escalate', allowed({ action: 'escalate', party })],
    ['resolve', allowed({ action: 'resolve', party })],
  ];
  return candidates.filter(([, ok]) => ok).map(([name]) => name);
}

/** An operator's possible decisions now (`operatorRefusal` decides). */
export function nextOperatorDecisions(state: CaseState): Array<OperatorDecision['decision']> {
  return operatorRefusal(state) === null ? ['close', 'remediate'] : [];
}

/** The state after an allowed party action; `newOutcomeId` names a proposed outcome. */
export function afterAction(state: CaseState, a: PartyAction, newOutcomeId: string): CaseState {
  const setOutcomes = (f: (o: OutcomeState) => OutcomeState) => state.outcomes.map(f);
  switch (a.action) {
    case 'propose':
      return { ...state, outcomes: [...state.outcomes, { id: newOutcomeId, type: a.type, party: a.party, status: 'PENDING' }] };
    case 'accept': {
      const accepted = state.outcomes.find((o) => o.id === a.outcomeId)!;
      return {
        // Accepting one outcome ends the negotiation: other pending proposals are superseded.
        outcomes: setOutcomes((o) =>
          o.id === a.outcomeId ? { ...o, status: 'ACCEPTED' } : o.status === 'PENDING' ? { ...o, status: 'SUPERSEDED' } : o,
        ),
        status: accepted.type === 'RETURN' ? 'SETTLED' : 'CLOSED',
      };
    }
    case 'reject':
      return { ...state, outcomes: setOutcomes((o) => (o.id === a.outcomeId ? { ...o, status: 'REJECTED' } : o)) };
    case 'escalate':
      return { ...state, status: 'ESCALATED' };
    case 'resolve':
      return { ...state, status: 'CLOSED' };
  }
}

/**
 * The case after its order was cancelled (docs/cases.md): closed, with nothing left to
 * negotiate. The cancellation refunded the whole order and put its units back on sale, so no
 * outcome could move money or stock any more; an outcome accepted before stays ACCEPTED.
 */
export function afterOrderCancelled(state: CaseState): CaseState {
  return { status: 'CLOSED', outcomes: state.outcomes.map((o) => (o.status === 'PENDING' ? { ...o, status: 'SUPERSEDED' } : o)) };
}

export function afterDecision(state: CaseState, d: OperatorDecision): CaseState {
  return {
    status: d.decision === 'close' ? 'CLOSED' : 'REMEDIATION',
    // An operator closing the case leaves nothing to negotiate.
    outcomes:
      d.decision === 'close' ? state.outcomes.map((o) => (o.status === 'PENDING' ? { ...o, status: 'SUPERSEDED' } : o)) : state.outcomes,
  };
}
