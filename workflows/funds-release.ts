import { sleep } from '@temporalio/workflow';
import type { MoneyActivities } from '../activities/money';
import type { WorkflowInputs } from './contracts/inputs';
import { BOUNDED_RETRY, boundedActivities } from './bounded-activities';

const { releaseOrderFunds } = boundedActivities<MoneyActivities>({
  startToCloseTimeout: '30 seconds',
  retry: BOUNDED_RETRY,
});

/**
 * `funds-release:{orderId}`: started when an order is received. After the hold period, the
 * seller's share of the order moves from pending to available (the activity does nothing when
 * it was released already).
 */
export async function fundsReleaseWorkflow(input: WorkflowInputs['fundsReleaseWorkflow']): Promise<boolean> {
  await sleep(input.afterSeconds * 1000);
  return releaseOrderFunds(input.orderId);
}
