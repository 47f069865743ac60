import { ApplicationFailure } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  CaseState,
  OperatorDecision,
  OutcomeProposal,
  Party,
  PartyAction,
  Refusal,
  RefusalReason,
} from '../../src/domain/cases/machine';

/**
 * The contract of `case:{caseId}` shared by the workflow and the API. No I/O: both sides import
 * it, so Update and query names, argument types and the shape of a refusal are written once.
 */

export const proposeUpdate = defineUpdate<CaseState, [{ party: Party } & OutcomeProposal]>('propose');
export const acceptUpdate = defineUpdate<CaseState, [{ party: Party; outcomeId: string }]>('accept');
export const rejectUpdate = defineUpdate<CaseState, [{ party: Party; outcomeId: string }]>('reject');
export const escalateUpdate = defineUpdate<CaseState, [{ party: Party }]>('escalate');
export const resolveUpdate = defineUpdate<CaseState, [{ party: Party }]>('resolve');
/** Operators only (CLI or Web UI): the ways out of ESCALATED. */
export const operatorDecisionUpdate = defineUpdate<CaseState, [OperatorDecision]>('operatorDecision');
export const caseStateQuery = defineQuery<CaseState>('state');
/** The case's order was cancelled (sent through the start outbox by the cancellation): the case closes. */
export const orderCancelledSignal = defineSignal('orderCancelled');

/** The Update each party action is sent as. */
export const partyUpdates = {
  propose: proposeUpdate,
  accept: acceptUpdate,
  reject: rejectUpdate,
  escalate: escalateUpdate,
  resolve: resolveUpdate,
} as const satisfies Record<PartyAction['action'], unknown>;

/** `ApplicationFailure.type` of a refused Update; its first detail is the `CaseRefusalDetails`. */
export const CASE_REFUSAL = 'CaseRefusal';

export type CaseRefusalDetails = RefusalReason;

/** A refused Update as the workflow's validator throws it (non-retryable: the answer is final). */
export function caseRefusalFailure(r: Refusal): ApplicationFailure {
  const { message: _, ...details } = r;
  return ApplicationFailure.create({ type: CASE_REFUSAL, message: r.message, nonRetryable: true, details: [details] });
}

/** The refusal a failure carries, or null when it is some other failure. */
export function caseRefusalOf(failure: ApplicationFailure): Refusal | null {
  if (failure.type !== CASE_REFUSAL) return null;
  const details = failure.details?.[0] as CaseRefusalDetails | undefined;
  return details ? ({ ...details, message: failure.message } as Refusal) : null;
}
