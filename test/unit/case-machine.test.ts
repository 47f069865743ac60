import {
  afterAction,
  afterDecision,
  CASE_STATUSES,
  operatorRefusal,
  refusal,
  type CaseState,
  type CaseStatus,
  type OutcomeState,
  type Party,
  type PartyAction,
} from '../../src/domain/cases/machine';

const PARTIES: Party[] = ['BUYER', 'SELLER'];
const ACTIONS = ['propose', 'accept', 'reject', 'escalate', 'resolve'] as const;
type ActionName = (typeof ACTIONS)[number];

// The buyer asks for a return, the seller offers a refund; in SETTLED the return was accepted,
// in CLOSED the refund was.
const buyerReturn: OutcomeState = { id: 'o-buyer', type: 'RETURN', party: 'BUYER', status: 'PENDING' };
const sellerRefund: OutcomeState = { id: 'o-seller', type: 'REFUND', party: 'SELLER', status: 'PENDING' };

function stateIn(status: CaseStatus): CaseState {
  if (status === 'SETTLED')
    return {
      status,
      outcomes: [
        { ...buyerReturn, status: 'ACCEPTED' },
        { ...sellerRefund, status: 'SUPERSEDED' },
      ],
    };
  if (status === 'CLOSED')
    return {
      status,
      outcomes: [
        { ...buyerReturn, status: 'SUPERSEDED' },
        { ...sellerRefund, status: 'ACCEPTED' },
      ],
    };
  return { status, outcomes: [buyerReturn, sellerRefund] };
}

/** A party's action; accept and reject name the other party's outcome. */
function actionOf(name: ActionName, party: Party): PartyAction {
  const other = party === 'BUYER' ? sellerRefund.id : buyerReturn.id;
  switch (name) {
    case 'propose':
      return { action: 'propose', party, type: 'REFUND', amount: 100, comment: '', deliveryAddress: null };
    case 'accept':
    case 'reject':
      return { action: name, party, outcomeId: other };
    case 'escalate':
    case 'resolve':
      return { action: name, party };
  }
}

/**
 * Written out by hand from the spec's table and docs/cases.md: per status, action and party,
 * `→STATUS` when allowed (the status after it), otherwise the refusal code.
 * `Record<CaseStatus, …>` makes a new status a compile error here until its row is written.
 */
const BOTH = (v: string) => ({ BUYER: v, SELLER: v });
const NEGOTIATING = {
  propose: BOTH('→same'),
  // The seller accepting the buyer's return settles; the buyer accepting the seller's refund closes.
  accept: { BUYER: '→CLOSED', SELLER: '→SETTLED' },
  reject: BOTH('→same'),
  escalate: BOTH('→ESCALATED'),
  resolve: { BUYER: 'action-not-allowed', SELLER: 'case-not-settled' },
};
const EXPECTED: Record<CaseStatus, Record<ActionName, Record<Party, string>>> = {
  OPEN: NEGOTIATING,
  REMEDIATION: NEGOTIATING,
  ESCALATED: { ...NEGOTIATING, escalate: BOTH('case-not-escalatable') },
  SETTLED: {
    propose: BOTH('outcome-accepted'),
    accept: BOTH('outcome-accepted'),
    reject: BOTH('outcome-accepted'),
    escalate: BOTH('case-not-escalatable'),
    resolve: { BUYER: 'action-not-allowed', SELLER: '→CLOSED' },
  },
  CLOSED: {
    propose: BOTH('case-closed'),
    accept: BOTH('case-closed'),
    reject: BOTH('case-closed'),
    escalate: BOTH('case-closed'),
    resolve: BOTH('case-closed'),
  },
};

describe('case machine: party actions', () => {
  it('has an expectation for every status', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...CASE_STATUSES].sort());
  });

  const rows = CASE_STATUSES.flatMap((s) =>
    ACTIONS.flatMap((a) => PARTIES.map((p): [CaseStatus, ActionName, Party, string] => [s, a, p, EXPECTED[s][a][p]])),
  );
  it('covers every status, action and party', () => expect(rows).toHaveLength(CASE_STATUSES.length * ACTIONS.length * PARTIES.length));

  it.each(rows)('%s: %s by %s → %s', (status, name, party, expected) => {
    const state = stateIn(status);
    const action = actionOf(name, party);
    const refused = refusal(state, action);
    if (expected.startsWith('→')) {
      expect(refused).toBeNull();
      const after = afterAction(state, action, 'o-new');
      expect(after.status).toBe(expected === '→same' ? status : expected.slice(1));
    } else {
      expect(refused).toEqual(expect.objectContaining({ kind: 'conflict', code: expected }));
    }
  });
});

describe('case machine: outcomes', () => {
  const open = stateIn('OPEN');

  it('refuses accepting or rejecting an own, unknown or no longer pending outcome', () => {
    for (const name of ['accept', 'reject'] as const) {
      expect(refusal(open, { action: name, party: 'BUYER', outcomeId: buyerReturn.id })?.code).toBe('own-outcome');
      expect(refusal(open, { action: name, party: 'BUYER', outcomeId: 'missing' })).toEqual(expect.objectContaining({ kind: 'not-found' }));
      const rejected: CaseState = { ...open, outcomes: [buyerReturn, { ...sellerRefund, status: 'REJECTED' }] };
      expect(refusal(rejected, { action: name, party: 'BUYER', outcomeId: sellerRefund.id })?.code).toBe('outcome-not-pending');
    }
  });

  it('records a proposal as PENDING, a rejection as REJECTED, and an acceptance supersedes the other pending outcomes', () => {
    const proposed = afterAction(open, actionOf('propose', 'SELLER'), 'o-new');
    expect(proposed.outcomes.at(-1)).toEqual({ id: 'o-new', type: 'REFUND', party: 'SELLER', status: 'PENDING' });
    expect(afterAction(open, actionOf('reject', 'SELLER'), 'x').outcomes.map((o) => o.status)).toEqual(['REJECTED', 'PENDING']);
    const accepted = afterAction(proposed, actionOf('accept', 'SELLER'), 'x');
    expect(accepted.outcomes.map((o) => o.status)).toEqual(['ACCEPTED', 'SUPERSEDED', 'SUPERSEDED']);
  });
});

describe('case machine: operator decisions', () => {
  it.each(CASE_STATUSES.map((s) => [s]))('%s: decided by an operator only when ESCALATED', (status) => {
    const refused = operatorRefusal(stateIn(status));
    if (status === 'ESCALATED') expect(refused).toBeNull();
    else expect(refused?.code).toBe('case-not-escalated');
  });

  it('closes (superseding pending outcomes) or sends the case back to remediation', () => {
    const escalated = stateIn('ESCALATED');
    const closed = afterDecision(escalated, { decision: 'close' });
    expect(closed.status).toBe('CLOSED');
    expect(closed.outcomes.map((o) => o.status)).toEqual(['SUPERSEDED', 'SUPERSEDED']);
    const remediation = afterDecision(escalated, { decision: 'remediate' });
    expect(remediation).toEqual({ status: 'REMEDIATION', outcomes: escalated.outcomes });
  });
});
