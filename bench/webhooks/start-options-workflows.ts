import { patched, upsertSearchAttributes } from '@temporalio/workflow';
import { WEBHOOK_SEARCH_ATTRIBUTES } from '../../src/domain/webhooks/search-attributes';
import { WEBHOOK_OUTCOME_PATCH } from '../../workflows/webhook-delivery';
import { baselineLocalWorkflow, baselineWorkflow } from './baseline-workflow';

export { baselineLocalWorkflow, baselineWorkflow };

/**
 * The baseline plus what a webhook delivery does when it ends: the patch marker and the
 * `WebhookOutcome` upsert (workflows/webhook-delivery.ts).
 */
export async function baselineWithOutcomeWorkflow(eventId: string): Promise<void> {
  await baselineWorkflow(eventId);
  if (patched(WEBHOOK_OUTCOME_PATCH)) upsertSearchAttributes([{ key: WEBHOOK_SEARCH_ATTRIBUTES.outcome, value: 'delivered' }]);
}
