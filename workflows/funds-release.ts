import { proxyActivities, sleep } from '@temporalio/workflow';
import type { MoneyActivities } from '../activities/money';
import type { WorkflowInputs } from './contracts/inputs';

const { releaseOrderFunds } = proxyActivities<MoneyActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
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
