import { patched, sleep, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { WEBHOOK_SEARCH_ATTRIBUTES } from '../src/domain/webhooks/search-attributes';
import type { EmailActivities } from '../activities/email';
import type { WebhookActivities } from '../activities/webhooks';
import type { WebhookDeliveryPolicy } from './contracts/webhook-delivery';
import { BOUNDED_RETRY, boundedActivities } from './bounded-activities';

export type WebhookDeliveryResult = { outcome: 'delivered' | 'failed' | 'gone' | 'disabled' | 'skipped'; attempts: number };

/** A receiver's `Retry-After` is honoured up to this long; beyond it the schedule's wait applies. */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

const { deliverEmail } = boundedActivities<EmailActivities>({
  startToCloseTimeout: '30 seconds',
  retry: BOUNDED_RETRY,
});

export interface WebhookDeliveryInput {
  eventId: string;
  endpointId: string;
  policy: WebhookDeliveryPolicy;
}

/**
 * Delivers one event to one endpoint (`webhook:{eventId}:{endpointId}`). Each attempt is one
 * activity; the waits between attempts are durable timers, so a worker restart loses nothing
 * and `Retry-After` can lengthen a wait. The attempt activity itself is retried only for
 * infrastructure faults (database down, worker lost mid-attempt): what the receiver answers is
 * a result, not an error.
 *
 * The attempt is a local activity: run by the worker that runs the workflow task, with no
 * activity task and no second workflow task, which took the Temporal server's CPU per delivery
 * from about 32 to 22 ms (bench/results/temporal-start-options.md). It holds its workflow task
 * slot for the whole POST, so deliveries run on a task queue of their own (src/modules/webhooks.ts).
 * Chosen by the input (`policy.localAttempts`), not by a patch: a delivery started before has
 * activities in its history and keeps them, and a patch would add a marker and a
 * `TemporalChangeVersion` upsert (a visibility write) to every delivery.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const { retryScheduleMs, attemptTimeoutMs, localAttempts = false } = input.policy;
  const { attemptWebhookDelivery } = boundedActivities<WebhookActivities>(
    // Room for the HTTP deadline plus the database writes around it.
    { startToCloseTimeout: attemptTimeoutMs + 5_000, retry: BOUNDED_RETRY },
    { local: localAttempts },
  );
  for (let attempt = 1; ; attempt++) {
    const finalAttempt = attempt > retryScheduleMs.length;
    const result = await attemptWebhookDelivery({
      eventId: input.eventId,
      endpointId: input.endpointId,
      finalAttempt,
      timeoutMs: attemptTimeoutMs,
    });
    if (result.outcome === 'retry' && !finalAttempt) {
      const scheduled = retryScheduleMs[attempt - 1]!;
      // Never earlier than the receiver asked, never later than the cap.
      await sleep(Math.max(scheduled, Math.min(result.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS)), {
        summary: `before delivery attempt ${attempt + 1}`,
      });
      continue;
    }
    if (result.outcome === 'disabled' && result.notificationId) await deliverEmail(result.notificationId);
    const outcome = result.outcome === 'retry' ? 'failed' : result.outcome;
    recordOutcome(outcome);
    return { outcome, attempts: attempt };
  }
}

/** The patch that added the outcome upsert (docs/operations.md, "Deploying workflow code"). */
export const WEBHOOK_OUTCOME_PATCH = 'webhook-outcome-search-attribute';

/**
 * Sets `WebhookOutcome` when a delivery ends in anything but `delivered`, so an operator can list
 * a seller's failed deliveries; a delivered one leaves it unset (Completed, no `WebhookOutcome`).
 * An upsert is one more command, history event and visibility write (and, on Temporal Cloud, a
 * billed action) per delivery: on the common path it cost about 6 % of a burst's rate
 * (bench/results/temporal-start-options.md). Only on deliveries started with the webhook search
 * attributes (the time-skipping test server, which knows none, starts them without). Behind a
 * patch: a delivery recorded before the upsert existed has none in its history, and replaying it
 * must not add one.
 */
function recordOutcome(outcome: WebhookDeliveryResult['outcome']): void {
  if (outcome === 'delivered') return;
  if (workflowInfo().typedSearchAttributes.get(WEBHOOK_SEARCH_ATTRIBUTES.endpointId) === undefined) return;
  if (patched(WEBHOOK_OUTCOME_PATCH)) upsertSearchAttributes([{ key: WEBHOOK_SEARCH_ATTRIBUTES.outcome, value: outcome }]);
}
