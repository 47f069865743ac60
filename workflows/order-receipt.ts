import { condition, setHandler } from '@temporalio/workflow';
import type { OrderActivities } from '../activities/orders';
import { orderDeliveredSignal } from './contracts/shipment-tracking';
import { BOUNDED_RETRY, boundedActivities } from './bounded-activities';

const { autoReceiveOrder } = boundedActivities<OrderActivities>({
  startToCloseTimeout: '30 seconds',
  retry: BOUNDED_RETRY,
});

export interface OrderReceiptInput {
  orderId: string;
  afterSeconds: number;
}

/**
 * `order-receipt:{orderId}`: started when an order ships. After the configured period the
 * order counts as received unless the buyer confirmed it first (the activity then does nothing).
 * A delivery (every shipment DELIVERED) brings the receipt forward, never back.
 */
export async function orderReceiptWorkflow(input: OrderReceiptInput): Promise<boolean> {
  let receiptAt = Date.now() + input.afterSeconds * 1000;
  setHandler(orderDeliveredSignal, ({ receiptSeconds }) => {
    receiptAt = Math.min(receiptAt, Date.now() + receiptSeconds * 1000);
  });
  for (let left = receiptAt - Date.now(); left > 0; left = receiptAt - Date.now()) {
    const until = receiptAt;
    await condition(() => receiptAt !== until, left, { summary: `received automatically at ${new Date(until).toISOString()}` });
  }
  return autoReceiveOrder(input.orderId);
}
