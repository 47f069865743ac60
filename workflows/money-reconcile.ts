import { proxyActivities } from '@temporalio/workflow';
import type { MoneyActivities } from '../activities/money';
import type { Reconciliation } from '../src/services/money/reconciler';

const { reconcileMoney } = proxyActivities<MoneyActivities>({
  // Each stuck item is one short transaction; a backlog after a long outage takes longer.
  startToCloseTimeout: '10 minutes',
  // Unbounded on purpose: the reconciler is the safety net of the bounded money workflows.
  // A run that cannot reach the database keeps trying; the Schedule skips overlapping runs.
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
  // Unbounded, so not `boundedActivities`: the history still says what the call is for.
  summary: 'finish payouts and fund releases past their due time',
});

/** Started by the money reconciler's Schedule; no input. */
export type MoneyReconcileInput = Record<string, never>;

/**
 * One pass of the money reconciler (docs/money.md "Reconciler"), started by the `money-reconcile`
 * Schedule: finishes payouts and releases past their due time as of the workflow's clock.
 */
export async function moneyReconcileWorkflow(_input: MoneyReconcileInput = {}): Promise<Reconciliation[]> {
  return reconcileMoney(new Date().toISOString());
}
