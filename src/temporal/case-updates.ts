import { isGrpcServiceError, ServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { CaseState, PartyAction } from '../../workflows/case-machine';
import { conflict, DomainError, invalid, notFound } from '../services/errors';
import { workflowIds } from './workflow-ids';

/** How long a party's request waits for the case workflow to answer before a 503. */
const UPDATE_DEADLINE_MS = 10_000;

/**
 * Sends a party's action to `case:{caseId}` as a Temporal Update and waits for its answer. A
 * refusal by the workflow's validator becomes the DomainError it names (409, or 404 for an
 * unknown outcome); a finished workflow means the case closed in the meantime (409).
 */
export class CaseUpdates {
  constructor(private readonly client: Client) {}

  /** `updateId`: a retried action with the same id is the same Update (Temporal answers its first outcome). */
  async act(caseId: string, action: PartyAction, options: { updateId?: string } = {}): Promise<CaseState> {
    const { action: name, ...args } = action;
    try {
      return await this.client.connection.withDeadline(Date.now() + UPDATE_DEADLINE_MS, () =>
        this.client.workflow.getHandle(workflowIds.case(caseId)).executeUpdate<CaseState, [typeof args]>(name, { args: [args], ...(options.updateId ? { updateId: options.updateId } : {}) }),
      );
    } catch (err) {
      throw toDomainError(err);
    }
  }
}

function toDomainError(err: unknown): unknown {
  if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type) {
    const [kind, code] = err.cause.type.split(':') as [string, string];
    if (kind === 'invalid') return invalid(code, err.cause.message);
    if (kind === 'unavailable') return new DomainError('unavailable', code, err.cause.message);
    return kind === 'not-found' ? notFound('Outcome') : conflict(code, err.cause.message);
  }
  if (err instanceof WorkflowNotFoundError) return conflict('case-closed', 'The case is closed.');
  // Temporal unreachable or too slow: the gRPC call failed or its deadline passed.
  if (err instanceof ServiceError || err instanceof WorkflowUpdateRPCTimeoutOrCancelledError || isGrpcServiceError(err)) {
    return new DomainError('unavailable', 'temporarily-unavailable', 'The case could not be updated; try again shortly.');
  }
  return err;
}
