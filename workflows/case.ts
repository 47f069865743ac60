import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  setHandler,
  upsertSearchAttributes,
  uuid4,
  allHandlersFinished,
} from '@temporalio/workflow';
import type { CaseActivities, CaseChange } from '../activities/cases';
import type { EmailActivities } from '../activities/email';
import { CASE_SEARCH_ATTRIBUTES } from '../src/domain/cases/search-attributes';
import {
  afterAction,
  afterDecision,
  afterOrderCancelled,
  ESCALATABLE,
  operatorRefusal,
  refusal,
  type CaseState,
  type OperatorDecision,
  type OutcomeState,
  type PartyAction,
} from '../src/domain/cases/machine';
import { caseRefusalFailure as fail, caseStateQuery, operatorDecisionUpdate, orderCancelledSignal, partyUpdates } from './contracts/case';
import { BOUNDED_RETRY, boundedActivities } from './bounded-activities';
import { DATA_REFUSED } from '../src/domain/failure-types';

const { recordCaseChange, deliverEmail } = boundedActivities<CaseActivities & EmailActivities>({
  startToCloseTimeout: '30 seconds',
  retry: BOUNDED_RETRY,
});

/**
 * The refusal for a change that could not be stored: `change-refused` (400) when the database
 * refused its data, `change-not-recorded` (503) when the write kept failing.
 */
function unrecorded(err: unknown): ApplicationFailure {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure && cause.type === DATA_REFUSED) {
    return fail({ kind: 'invalid', code: 'change-refused', message: 'The change was refused: its data cannot be stored.' });
  }
  return fail({ kind: 'unavailable', code: 'change-not-recorded', message: 'The change could not be recorded; try again later.' });
}

export interface CaseWorkflowInput {
  caseId: string;
  /** Outcomes proposed when the case was opened (already stored with the case). */
  outcomes: OutcomeState[];
  /** "Unresolved for 7 days" (CASE_AUTO_ESCALATE_SECONDS), counted per OPEN/REMEDIATION period. */
  autoEscalateAfterMs: number;
  /**
   * Whether the server knows the custom search attributes (the dev server and real clusters
   * do; the time-skipping test server does not), so CaseStatus is kept up to date there.
   */
  indexed: boolean;
}

/**
 * `case:{caseId}`: owns the case state machine from OPEN to CLOSED. Parties act through Updates
 * whose validators refuse invalid transitions (so the API answers 409/404 synchronously and the
 * refused call leaves no trace in history); each accepted Update is written to Postgres by the
 * `recordCaseChange` activity before it answers, so what the API then reads is the new state.
 * An OPEN or REMEDIATION period that lasts `autoEscalateAfterMs` escalates automatically.
 */
export async function caseWorkflow(input: CaseWorkflowInput): Promise<CaseState> {
  let state: CaseState = { status: 'OPEN', outcomes: input.outcomes };
  /** Bumped when an OPEN/REMEDIATION period starts; the escalation timer belongs to one period. */
  let period = 0;
  /** The case row is gone (its opening transaction rolled back): nothing to do. */
  let missing = false;
  // Writes are applied one after another in the order the state changed, so Postgres never
  // ends up with an older status written after a newer one.
  let writes: Promise<unknown> = Promise.resolve();
  const deliveries: Array<Promise<void>> = [];

  async function commit(next: CaseState, change: Omit<CaseChange, 'caseId' | 'changeId' | 'status' | 'outcomes'>): Promise<CaseState> {
    const before = { state, period };
    const entersPeriod = ESCALATABLE.includes(next.status) && !ESCALATABLE.includes(state.status);
    state = next;
    if (entersPeriod) period += 1;
    if (input.indexed) upsertSearchAttributes([{ key: CASE_SEARCH_ATTRIBUTES.status, value: next.status }]);
    const written = writes.then(() =>
      recordCaseChange({ ...change, caseId: input.caseId, changeId: uuid4(), status: next.status, outcomes: next.outcomes }),
    );
    writes = written.catch(() => undefined);
    let result: Awaited<typeof written>;
    try {
      result = await written;
    } catch (err) {
      // The change was never stored (the data was refused, or retries ran out): the case goes
      // back to where it was, so both parties can still act, and the caller gets a refusal.
      // The failure itself is on the `lastActivityFailure` memo and in the worker's log.
      if (state === next) ({ state, period } = before);
      if (input.indexed) upsertSearchAttributes([{ key: CASE_SEARCH_ATTRIBUTES.status, value: state.status }]);
      throw unrecorded(err);
    }
    if (result === null) {
      missing = true;
      return next;
    }
    // Notifications go out in the background: a party's answer does not wait for SMTP.
    deliveries.push(...result.messageIds.map((id) => deliverEmail(id)));
    return next;
  }

  /** Refuses (validator) or applies (handler) one party action; both see the same rules. */
  const check = (a: PartyAction) => {
    const r = refusal(state, a);
    if (r) throw fail(r);
  };
  const act = (a: PartyAction) => {
    // Re-checked: another Update may have changed the state since this one was validated.
    check(a);
    const outcomeId = uuid4();
    return commit(afterAction(state, a, outcomeId), {
      actor: a.party,
      kind: a.action,
      proposal:
        a.action === 'propose'
          ? { id: outcomeId, type: a.type, amount: a.amount, comment: a.comment, deliveryAddress: a.deliveryAddress }
          : undefined,
    });
  };
  const party = (action: PartyAction['action']) => ({
    validator: (args: object) => check({ ...args, action } as PartyAction),
    handler: (args: object) => act({ ...args, action } as PartyAction),
  });
  for (const [action, update] of Object.entries(partyUpdates) as Array<
    [PartyAction['action'], (typeof partyUpdates)[keyof typeof partyUpdates]]
  >) {
    const { handler, validator } = party(action);
    setHandler(update as typeof partyUpdates.escalate, handler, { validator });
  }
  const checkOperator = (_decision: OperatorDecision) => {
    const r = operatorRefusal(state);
    if (r) throw fail(r);
  };
  setHandler(
    operatorDecisionUpdate,
    (d) => {
      checkOperator(d);
      return commit(afterDecision(state, d), { actor: 'OPERATOR', kind: d.decision === 'close' ? 'operator-close' : 'operator-remediate' });
    },
    { validator: checkOperator },
  );
  setHandler(caseStateQuery, () => state);
  // The order was cancelled: the main loop closes the case (once; a failed write leaves it open).
  let orderCancelled = false;
  setHandler(orderCancelledSignal, () => {
    orderCancelled = true;
  });

  while (state.status !== 'CLOSED' && !missing) {
    if (orderCancelled) {
      orderCancelled = false;
      await commit(afterOrderCancelled(state), { actor: 'SYSTEM', kind: 'order-cancelled' }).catch(() => undefined);
    } else if (ESCALATABLE.includes(state.status)) {
      const current = period;
      const moved = await condition(
        () => period !== current || !ESCALATABLE.includes(state.status) || missing || orderCancelled,
        input.autoEscalateAfterMs,
        { summary: `${state.status} period: escalates unless the parties move` },
      );
      // A failed escalation leaves the case as it was (see commit); the next period tries again.
      if (!moved) await commit({ ...state, status: 'ESCALATED' }, { actor: 'SYSTEM', kind: 'auto-escalate' }).catch(() => undefined);
    } else {
      const seen = state.status;
      await condition(() => state.status !== seen || missing || orderCancelled);
    }
  }
  // Let Updates in flight finish (their callers wait for the answer) before completing.
  await condition(allHandlersFinished);
  await writes;
  await Promise.all(deliveries);
  return state;
}
