/**
 * The Temporal Schedules' ids, each also the id prefix of the workflows it starts. A workflow
 * started for a business object has a deterministic id declared by the feature module that owns
 * it (`casesWorkflowIds`, …), so starting it twice is harmless and operators find it from the
 * object's id (docs/architecture.md).
 */
export const workflowIds = {
  /** The Temporal Schedule that starts the payout runs, and its workflows' id prefix. */
  payoutRunSchedule: 'payout-run',
  /** The Temporal Schedule that sweeps run-out checkout holds, and its workflows' id prefix. */
  checkoutExpirySchedule: 'checkout-expiry',
  /** The Temporal Schedule of the money reconciler, and its workflows' id prefix. */
  moneyReconcileSchedule: 'money-reconcile',
  /** The Temporal Schedule that deletes unattached uploads, and its workflows' id prefix. */
  uploadCollectorSchedule: 'upload-collector',
  /** The Temporal Schedule that rolls completed sales up per day for the price guide, and its workflows' id prefix. */
  priceGuideRollupSchedule: 'price-guide-rollup',
};
