import { proxyActivities } from '@temporalio/workflow';
import type { PruneResult, RetentionActivities } from '../activities/retention';

const { pruneOutboxes } = proxyActivities<RetentionActivities>({
  // Batched deletes of a day's rows take seconds; a backlog after a long outage, minutes.
  startToCloseTimeout: '30 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 5 },
  summary: 'delete outbox rows past their retention',
});

/**
 * One retention pass (docs/operations.md, "Retention"), started by the Temporal Schedule
 * `outbox-retention` that the worker keeps in line with its configuration.
 */
export async function outboxRetentionWorkflow(input: { olderThanMs: number }): Promise<PruneResult> {
  return pruneOutboxes(input.olderThanMs);
}
