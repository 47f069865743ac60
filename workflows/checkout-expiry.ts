import type { CheckoutActivities } from '../activities/checkout';
import { boundedActivities } from './bounded-activities';

const { expireRunOutCheckouts } = boundedActivities<CheckoutActivities>({
  startToCloseTimeout: '2 minutes',
  // Few retries: the Schedule runs the sweep again within seconds, and skips a run while one is
  // still going, so a long retry would only hold every later sweep back.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
});

/** Started by the checkout expiry Schedule; no input. */
export type CheckoutExpiryInput = Record<string, never>;

/**
 * One hold expiry sweep (docs/checkout-orders.md, "Hold expiry"), started by the Temporal Schedule
 * `checkout-expiry` that the worker keeps in line with its configuration. Returns how many
 * sessions it expired.
 */
export async function checkoutExpiryWorkflow(_input: CheckoutExpiryInput): Promise<number> {
  return expireRunOutCheckouts();
}
