import {
  isGrpcServiceError,
  ServiceError,
  WorkflowExecutionAlreadyStartedError,
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
import { startHalfOf } from './update-with-start';

/** How long a party's move waits for the offer workflow to answer before a 503. */
const UPDATE_DEADLINE_MS = 10_000;

/**
 * Sends a party's move to `offer:{offerId}` as the `act` Update and waits for its answer, as
 * case-updates.ts does for cases: an update-with-start of the offer's own start, so an offer
 * made moments ago, whose start still waits in the start outbox, is started by its first move.
 * A refusal by the validator (or by the write behind it) becomes the DomainError it names (409
 * or 422); a finished workflow, which is not started again, answers null.
 */
export class OfferUpdates implements OfferWorkflowPort {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  async act(start: WorkflowStart, action: OfferAction, updateId: string): Promise<OfferState | null> {
    const startWorkflowOperation = startHalfOf(start, this.taskQueue);
    try {
      return await this.client.connection.withDeadline(Date.now() + UPDATE_DEADLINE_MS, () =>
        this.client.workflow.executeUpdateWithStart(offerActUpdate, { args: [action], updateId, startWorkflowOperation }),
      );
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return null;
      throw toDomainError(err);
    }
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
