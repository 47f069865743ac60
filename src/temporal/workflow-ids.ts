/**
 * Workflow ids: one workflow per business object, with deterministic ids, so starting the same
 * workflow twice is harmless (Temporal refuses a duplicate running id) and operators can find
 * a workflow from the object's id. See docs/architecture.md. These are the ids of the workflows
 * whose starts are still built in `src/services/workflow-starts/starts.ts` and of the Schedules;
 * a feature module declares its own workflows' ids (`wantsWorkflowIds`, …).
 */
export const workflowIds = {
  emailDelivery: (messageId: string) => `email:${messageId}`,
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
