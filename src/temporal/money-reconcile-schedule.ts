import type { Client, ScheduleOptionsAction } from '@temporalio/client';
import type { WorkflowInput } from '../modules/workflow-start';
import { upsertSchedule } from './upsert-schedule';
import { workflowIds } from './workflow-ids';

/**
 * Creates or updates the `money-reconcile` Schedule: every `everyMs` it starts
 * `moneyReconcileWorkflow`, which finishes payouts and releases past their due time
 * (docs/money.md, "Reconciler").
 */
export async function ensureMoneyReconcileSchedule(client: Client, options: { taskQueue: string; everyMs: number }): Promise<void> {
  const args: [WorkflowInput<'moneyReconcileWorkflow'>] = [{}];
  const action: ScheduleOptionsAction = {
    type: 'startWorkflow',
    workflowType: 'moneyReconcileWorkflow',
    workflowId: workflowIds.moneyReconcileSchedule,
    taskQueue: options.taskQueue,
    args,
    staticSummary: 'Finishes payouts and fund releases whose workflows gave up',
  };
  await upsertSchedule(client, workflowIds.moneyReconcileSchedule, { intervals: [{ every: options.everyMs }] }, action);
}
