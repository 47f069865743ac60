import {
  isGrpcServiceError,
  ServiceError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { caseRefusalOf, operatorDecisionUpdate, partyUpdates } from '../../workflows/contracts/case';
import type { CaseState, OperatorDecision, PartyAction } from '../domain/cases/machine';
import { conflict, DomainError, invalid, notFound, unavailable } from '../services/errors';
import { workflowIds } from './workflow-ids';

/** How long a party's request waits for the case workflow to answer before a 503. */
const UPDATE_DEADLINE_MS = 10_000;

/**
 * Sends a party's action to `case:{caseId}` as a Temporal Update and waits for its answer. A
 * refusal by the workflow's validator becomes the DomainError it names (409, or 404 for an
 * unknown outcome). No running workflow — finished, or its start still waiting in the start
 * outbox — answers null, and the service tells the two apart from the case row.
 */
export class CaseUpdates {
  constructor(private readonly client: Client) {}

  /** `updateId`: a retried action with the same id is the same Update (Temporal answers its first outcome). */
  async act(caseId: string, action: PartyAction, options: { updateId?: string } = {}): Promise<CaseState | null> {
    try {
      return await this.client.connection.withDeadline(Date.now() + UPDATE_DEADLINE_MS, () =>
        send(this.client.workflow.getHandle(workflowIds.case(caseId)), action, options.updateId),
      );
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return null;
      throw toDomainError(err);
    }
  }

  /**
   * An operator's decision: the same `operatorDecision` Update as `temporal workflow update
   * execute`. Operators decide only ESCALATED cases, whose workflow runs; none running → closed.
   */
  async decide(caseId: string, decision: OperatorDecision): Promise<CaseState> {
    try {
      return await this.client.connection.withDeadline(Date.now() + UPDATE_DEADLINE_MS, () =>
        this.client.workflow.getHandle(workflowIds.case(caseId)).executeUpdate(operatorDecisionUpdate, { args: [decision] }),
      );
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw conflict('case-closed', 'The case is closed.');
      throw toDomainError(err);
    }
  }
}

/** Each action through its own Update definition, so the argument types are the contract's. */
function send(handle: WorkflowHandle, a: PartyAction, updateId: string | undefined): Promise<CaseState> {
  const id = updateId ? { updateId } : {};
  switch (a.action) {
    case 'propose': {
      const { action: _, ...args } = a;
      return handle.executeUpdate(partyUpdates.propose, { args: [args], ...id });
    }
    case 'accept':
    case 'reject':
      return handle.executeUpdate(partyUpdates[a.action], { args: [{ party: a.party, outcomeId: a.outcomeId }], ...id });
    case 'escalate':
    case 'resolve':
      return handle.executeUpdate(partyUpdates[a.action], { args: [{ party: a.party }], ...id });
  }
}

function toDomainError(err: unknown): unknown {
  const refusal = err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure ? caseRefusalOf(err.cause) : null;
  if (refusal) {
    switch (refusal.kind) {
      case 'not-found':
        return notFound('Outcome');
      case 'invalid':
        return invalid(refusal.code, refusal.message);
      case 'unavailable':
        return new DomainError('unavailable', refusal.code, refusal.message);
      case 'conflict':
        return conflict(refusal.code, refusal.message);
    }
  }
  // Temporal unreachable or too slow: the gRPC call failed or its deadline passed. The cause is
  // logged with the request id, never sent to the client.
  if (err instanceof ServiceError || err instanceof WorkflowUpdateRPCTimeoutOrCancelledError || isGrpcServiceError(err)) {
    return unavailable('The case could not be updated; try again shortly.', { cause: err });
  }
  return err;
}
