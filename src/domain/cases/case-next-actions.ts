/**
 * Whose move a case waits for, and by when (docs/cases.md "Next actions"): the rules behind a
 * case view's `nextActions`. Pure: the view passes the case's clock readings.
 */
import { deadline, type NextAction, type Periods } from '../deadlines';
import { ESCALATABLE, type CaseState } from './machine';

export interface CaseClock extends CaseState {
  /** When the running OPEN or REMEDIATION period escalates automatically. */
  escalatesAt: Date | null;
  escalatedAt: Date | null;
}

const ESCALATES = 'The case escalates to an operator, who decides it.';

export function caseNextActions(c: CaseClock, periods: Pick<Periods, 'decisionSeconds'>): NextAction[] {
  const pending = c.outcomes.filter((o) => o.status === 'PENDING');
  // A proposal waits for the other party's answer (accept or reject), in any open status.
  const answers = (dueAt: Date | null, afterDue: string | null): NextAction[] =>
    [...new Set(pending.map((o) => (o.party === 'BUYER' ? 'SELLER' : 'BUYER')))].map((party) => ({
      party,
      action: 'accept',
      dueAt,
      afterDue,
    }));
  if (ESCALATABLE.includes(c.status)) {
    if (pending.length > 0) return answers(c.escalatesAt, ESCALATES);
    // Nothing on the table: either party proposes an outcome before the clock runs out.
    return (['BUYER', 'SELLER'] as const).map((party) => ({ party, action: 'propose', dueAt: c.escalatesAt, afterDue: ESCALATES }));
  }
  switch (c.status) {
    case 'ESCALATED':
      // An operator decides; the parties may still agree on a pending proposal meanwhile.
      return [
        { party: 'OPERATOR', action: 'decide', dueAt: deadline(c.escalatedAt, periods.decisionSeconds), afterDue: null },
        ...answers(null, null),
      ];
    case 'SETTLED':
      // A RETURN was accepted: the seller confirms the goods came back.
      return [{ party: 'SELLER', action: 'resolve', dueAt: null, afterDue: null }];
    default:
      return [];
  }
}
