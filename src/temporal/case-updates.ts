import {
  isGrpcServiceError,
  ServiceError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure, type UpdateDefinition } from '@temporalio/common';
import { caseRefusalOf, operatorDecisionUpdate, partyUpdates } from '../../workflows/contracts/case';
import type { CaseState, OperatorDecision, PartyAction } from '../domain/cases/machine';
import { conflict, DomainError, invalid, notFound, unavailable } from '../services/errors';
import type { WorkflowStart } from '../services/workflow-starts';
import { startHalfOf } from './update-with-start';

/** How long a party's request waits for the case workflow to answer before a 503. */
const UPDATE_DEADLINE_MS = 10_000;

/**
 * Sends a party's action to `case:{caseId}` as a Temporal Update and waits for its answer. A
 * refusal by the workflow's validator becomes the DomainError it names (409, or 404 for an
 * unknown outcome). The action is an update-with-start: a case opened moments ago, whose start
 * still waits in the start outbox, is started by its first action (with the outbox start's own
 * input), so no caller waits for the dispatcher; the outbox start then finds the id taken.
 */
export class CaseUpdates {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    /** `case:{caseId}`, as the cases module names it (src/modules/cases.ts). */
    private readonly caseWorkflowId: (caseId: string) => string,
  ) {}

  /** `updateId`: a retried action with the same id is the same Update (Temporal answers its first outcome). */
  async act(opening: WorkflowStart, action: PartyAction, options: { updateId?: string } = {}): Promise<CaseState> {
    const startWorkflowOperation = startHalfOf(opening, this.taskQueue);
    const { update, args } = updateOf(action);
    try {
      return await this.client.connection.withDeadline(Date.now() + UPDATE_DEADLINE_MS, () =>
        this.client.workflow.executeUpdateWithStart(update, {
          args,
          startWorkflowOperation,
          ...(options.updateId ? { updateId: options.updateId } : {}),
        }),
      );
    } catch (err) {
      // The workflow has finished, and is not started again.
      if (err instanceof WorkflowExecutionAlreadyStartedError) throw conflict('case-closed', 'The case is closed.');
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
        this.client.workflow.getHandle(this.caseWorkflowId(caseId)).executeUpdate(operatorDecisionUpdate, { args: [decision] }),
      );
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw conflict('case-closed', 'The case is closed.');
      throw toDomainError(err);
    }
  }
}

/** The Update a party action is sent as, with its arguments. */
type PartyUpdate = { update: UpdateDefinition<CaseState, [unknown]>; args: [unknown] };

/** Each action through its own Update definition, so the argument types are the contract's. */
function updateOf(a: PartyAction): PartyUpdate {
  // One shape for the single call site; each action's arguments are checked against its own definition here.
  const as = <Args>(update: UpdateDefinition<CaseState, [Args]>, args: Args): PartyUpdate => ({ update, args: [args] }) as PartyUpdate;
  switch (a.action) {
    case 'propose': {
      const { action: _, ...args } = a;
      return as(partyUpdates.propose, args);
    }
    case 'accept':
    case 'reject':
      return as(partyUpdates[a.action], { party: a.party, outcomeId: a.outcomeId });
    case 'escalate':
    case 'resolve':
      return as(partyUpdates[a.action], { party: a.party });
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
