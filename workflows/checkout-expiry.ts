import type { CheckoutActivities } from '../activities/checkout';
import type { WorkflowInputs } from './contracts/inputs';
import { boundedActivities } from './bounded-activities';

const { expireRunOutCheckouts } = boundedActivities<CheckoutActivities>({
  startToCloseTimeout: '2 minutes',
  // Few retries: the Schedule runs the sweep again within seconds, and skips a run while one is
  // still going, so a long retry would only hold every later sweep back.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
});

/**
 * One hold expiry sweep (docs/checkout-orders.md, "Hold expiry"), started by the Temporal Schedule
 * `checkout-expiry` that the worker keeps in line with its configuration. Returns how many
 * sessions it expired.
 */
export async function checkoutExpiryWorkflow(_input: WorkflowInputs['checkoutExpiryWorkflow']): Promise<number> {
  return expireRunOutCheckouts();
}
