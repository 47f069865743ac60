import { sleep } from '@temporalio/workflow';
import type { OrderActivities } from '../activities/orders';
import type { WorkflowInputs } from './contracts/inputs';
import { BOUNDED_RETRY, boundedActivities } from './bounded-activities';

const { autoReceiveOrder } = boundedActivities<OrderActivities>({
  startToCloseTimeout: '30 seconds',
  retry: BOUNDED_RETRY,
});

/**
 * `order-receipt:{orderId}`: started when an order ships. After the configured period the
 * order counts as received unless the buyer confirmed it first (the activity then does nothing).
 */
export async function orderReceiptWorkflow(input: WorkflowInputs['orderReceiptWorkflow']): Promise<boolean> {
  await sleep(input.afterSeconds * 1000);
  return autoReceiveOrder(input.orderId);
}
