import { proxyActivities, sleep } from '@temporalio/workflow';
import type { OrderActivities } from '../activities/orders';
import type { WorkflowInputs } from './contracts/inputs';

const { autoReceiveOrder } = proxyActivities<OrderActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * `order-receipt:{orderId}`: started when an order ships. After the configured period the
 * order counts as received unless the buyer confirmed it first (the activity then does nothing).
 */
export async function orderReceiptWorkflow(input: WorkflowInputs['orderReceiptWorkflow']): Promise<boolean> {
  await sleep(input.afterSeconds * 1000);
  return autoReceiveOrder(input.orderId);
}
