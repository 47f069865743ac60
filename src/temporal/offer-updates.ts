import {
  isGrpcServiceError,
  ServiceError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { offerActUpdate, offerRefusalOf } from '../../workflows/contracts/offer';
import type { OfferAction, OfferState } from '../domain/offers/machine';
import { conflict, DomainError, unavailable } from '../services/errors';
import type { OfferWorkflowPort } from '../services/offers/offers';
import type { WorkflowStart } from '../services/workflow-starts';
import { TemporalStartExecutor } from './start-executor';
import { workflowIds } from './workflow-ids';

/** How long a party's move waits for the offer workflow to answer before a 503. */
const UPDATE_DEADLINE_MS = 10_000;

/**
 * Sends a party's move to `offer:{offerId}` as the `act` Update and waits for its answer, as
 * case-updates.ts does for cases: a refusal by the validator (or by the write behind it) becomes
 * the DomainError it names (409 or 422); no running workflow answers null.
 */
export class OfferUpdates implements OfferWorkflowPort {
  private readonly executor: TemporalStartExecutor;

  constructor(
    private readonly client: Client,
    taskQueue: string,
  ) {
    this.executor = new TemporalStartExecutor(client, taskQueue);
  }

  async act(offerId: string, action: OfferAction, updateId: string): Promise<OfferState | null> {
    try {
      return await this.client.connection.withDeadline(Date.now() + UPDATE_DEADLINE_MS, () =>
        this.client.workflow.getHandle(workflowIds.offer(offerId)).executeUpdate(offerActUpdate, { args: [action], updateId }),
      );
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return null;
      throw toDomainError(err);
    }
  }

  /** Best effort: an id already started counts as started; Temporal unreachable leaves it to the dispatcher. */
  async startNow(start: WorkflowStart): Promise<void> {
    await this.executor.execute(start, { eager: false }).catch(() => undefined);
  }
}

function toDomainError(err: unknown): unknown {
  const refusal = err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure ? offerRefusalOf(err.cause) : null;
  if (refusal) {
    return refusal.kind === 'conflict'
      ? conflict(refusal.code, refusal.message)
      : new DomainError('unprocessable', refusal.code, refusal.message);
  }
  // The move passed the validator but could not be written (the database kept failing).
  if (err instanceof WorkflowUpdateFailedError) return unavailable('The move could not be recorded; try again shortly.', { cause: err });
  if (err instanceof ServiceError || err instanceof WorkflowUpdateRPCTimeoutOrCancelledError || isGrpcServiceError(err)) {
    return unavailable('The offer could not be updated; try again shortly.', { cause: err });
  }
  return err;
}
