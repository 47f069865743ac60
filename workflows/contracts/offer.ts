import { ApplicationFailure } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { OfferAction, OfferRefusal, OfferState } from '../../src/domain/offers/machine';

/**
 * The contract of `offer:{offerId}` shared by the workflow and the API (docs/offers.md). No I/O:
 * both sides import it, so the Update, signal and query names and the shape of a refusal are
 * written once.
 */

/** A party's move; answers the offer's state after it (or a refusal: `offerRefusalOf`). */
export const offerActUpdate = defineUpdate<OfferState, [OfferAction]>('act');
/**
 * Something outside the workflow changed the offer or its listing (the listing was repriced,
 * sold or deleted; the offer's checkout was paid): the workflow reads the offer again.
 */
export const offerChangedSignal = defineSignal('offerChanged');
export const offerStateQuery = defineQuery<OfferState | null>('state');

/** `ApplicationFailure.type` of a refused move; its first detail is `{ kind, code }`. */
export const OFFER_REFUSAL = 'OfferRefusal';

/** A refused move as the workflow throws it (non-retryable: the answer is final). */
export function offerRefusalFailure(r: OfferRefusal): ApplicationFailure {
  const { message, ...details } = r;
  return ApplicationFailure.create({ type: OFFER_REFUSAL, message, nonRetryable: true, details: [details] });
}

/** The refusal a failure carries, or null when it is some other failure. */
export function offerRefusalOf(failure: ApplicationFailure): OfferRefusal | null {
  if (failure.type !== OFFER_REFUSAL) return null;
  const details = failure.details?.[0] as Omit<OfferRefusal, 'message'> | undefined;
  return details ? ({ ...details, message: failure.message } as OfferRefusal) : null;
}
