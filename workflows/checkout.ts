import { condition, setHandler } from '@temporalio/workflow';
import type { CheckoutActivities } from '../activities/checkout';
import { paymentSettledSignal } from './contracts/checkout';
import type { WorkflowInputs } from './contracts/inputs';
import { BOUNDED_RETRY, boundedActivities } from './bounded-activities';

const { expireCheckout } = boundedActivities<CheckoutActivities>({
  startToCloseTimeout: '30 seconds',
  retry: BOUNDED_RETRY,
});

/**
 * `checkout:{sessionId}`: the durable timer behind a checkout's holds. Ends at once when the
 * payment settles; otherwise, after `holdSeconds`, expires the session and releases its holds.
 * The activity only acts on a still-open session, so a payment racing the timer is safe.
 */
export async function checkoutWorkflow(input: WorkflowInputs['checkoutWorkflow']): Promise<'settled' | 'expired'> {
  let settled = false;
  setHandler(paymentSettledSignal, () => {
    settled = true;
  });
  if (await condition(() => settled, input.holdSeconds * 1000)) return 'settled';
  return (await expireCheckout(input.sessionId)) ? 'expired' : 'settled';
}
