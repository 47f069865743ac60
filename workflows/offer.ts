import { allHandlersFinished, condition, setHandler, uuid4 } from '@temporalio/workflow';
import type { OfferActivities, OfferOutcome } from '../activities/offers';
import { NEGOTIATING, offerRefusal, OPEN, type OfferAction, type OfferState } from '../src/domain/offers/machine';
import { BOUNDED_RETRY, boundedActivities } from './bounded-activities';
import { offerActUpdate, offerChangedSignal, offerRefusalFailure as fail, offerStateQuery } from './contracts/offer';

/** How long the workflow waits before trying again a write of its own whose retries ran out. */
const RETRY_AFTER_FAILURE = '1 minute';

const { reviewOffer, applyOfferAction, expireOffer, lapseOffer } = boundedActivities<OfferActivities>({
  startToCloseTimeout: '30 seconds',
  retry: BOUNDED_RETRY,
});

/** `offer:{offerId}`: the workflow reads the offer's state and deadlines from its row. */
export interface OfferWorkflowInput {
  offerId: string;
}

/**
 * `offer:{offerId}` (docs/offers.md): one negotiation from the offer to PAID or its end. Parties
 * move through the `act` Update, whose validator refuses what the state machine refuses (the API
 * answers 409/422 and the refused call leaves no trace); each accepted move is written to
 * Postgres by an activity, which checks the listing again and may still refuse (stock taken,
 * listing ended). Two deadlines: a negotiating offer expires at its `expiresAt`, an accepted one
 * lapses at its `payBy`. `offerChanged` (a listing change, a payment) makes it read the offer again.
 */
export async function offerWorkflow(input: OfferWorkflowInput): Promise<OfferState | null> {
  let state: OfferState | null = null;
  let deadline: number | null = null;
  let version = 0;
  let changed = false;
  // One write at a time, in order: a move and a deadline never race in Postgres.
  let writes: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = writes.then(fn);
    writes = run.catch(() => undefined);
    return run;
  };
  const apply = (o: OfferOutcome) => {
    state = o.state;
    // The deadline by this workflow's clock, from the time left by the database's.
    deadline = o.remainingMs === null ? null : Date.now() + o.remainingMs;
    version += 1;
  };
  const change = (action?: OfferAction) => ({ offerId: input.offerId, changeId: uuid4(), ...(action ? { action } : {}) });

  /** The first read of the offer is done: before it, a move waits for it (its validator passes it on). */
  let loaded = false;
  const check = (a: OfferAction) => {
    if (!loaded) return;
    if (!state) throw fail({ kind: 'conflict', code: 'offer-closed', message: 'The offer is not open.' });
    const r = offerRefusal(state, a);
    if (r) throw fail(r);
    // At the deadline the offer is over, whether or not the timer has fired yet.
    if (deadline !== null && Date.now() >= deadline)
      throw fail({ kind: 'conflict', code: 'offer-closed', message: 'The offer has expired.' });
  };
  setHandler(
    offerActUpdate,
    async (a) => {
      // Outside the queue of writes: a move delivered with the workflow's first task (before its
      // first read is even queued) must not queue ahead of the read it waits for.
      await condition(() => loaded);
      return serial(async () => {
        // Again: another move may have changed the state since this one was validated.
        check(a);
        const outcome = await applyOfferAction(change(a));
        apply(outcome);
        if (outcome.refusal) throw fail(outcome.refusal);
        return outcome.state!;
      });
    },
    { validator: check },
  );
  setHandler(offerChangedSignal, () => {
    changed = true;
  });
  setHandler(offerStateQuery, () => state);

  /**
   * One of the workflow's own writes (a read, an expiry, a lapse). A write that keeps failing
   * (its bounded retries ran out) is tried again a minute later: the offer must not be left
   * without its deadline because the database was away for a while.
   */
  const own = async (write: () => Promise<OfferOutcome>): Promise<void> => {
    try {
      apply(await serial(write));
    } catch {
      await condition(() => false, RETRY_AFTER_FAILURE, { summary: 'the database was away: try the write again' });
    }
  };

  while (!loaded) {
    await own(() => reviewOffer(change()));
    loaded = version > 0;
  }
  while (state !== null && OPEN.includes((state as OfferState).status)) {
    if (changed) {
      changed = false;
      await own(() => reviewOffer(change()));
      continue;
    }
    const seen = version;
    const due = deadline ?? Date.now();
    const moved = await condition(() => version !== seen || changed, Math.max(due - Date.now(), 1), {
      summary: `${(state as OfferState).status}: ${NEGOTIATING.includes((state as OfferState).status) ? 'expires' : 'lapses'} unless a party moves`,
    });
    if (moved || version !== seen) continue;
    const negotiating = NEGOTIATING.includes((state as OfferState).status);
    await own(() => (negotiating ? expireOffer(change()) : lapseOffer(change())));
  }
  // Let moves in flight finish (their callers wait for the answer) before completing.
  await condition(allHandlersFinished);
  return state;
}
