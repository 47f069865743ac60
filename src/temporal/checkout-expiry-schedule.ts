import type { Client, ScheduleOptionsAction } from '@temporalio/client';
import type { WorkflowInput } from '../modules/workflow-start';
import { upsertSchedule } from './upsert-schedule';
import { workflowIds } from './workflow-ids';

/**
 * Creates or updates the `checkout-expiry` Schedule: every `everyMs` it starts
 * `checkoutExpiryWorkflow`, which expires the checkouts whose hold has run out
 * (docs/checkout-orders.md, "Hold expiry").
 */
export async function ensureCheckoutExpirySchedule(client: Client, options: { taskQueue: string; everyMs: number }): Promise<void> {
  const args: [WorkflowInput<'checkoutExpiryWorkflow'>] = [{}];
  const action: ScheduleOptionsAction = {
    type: 'startWorkflow',
    workflowType: 'checkoutExpiryWorkflow',
    workflowId: workflowIds.checkoutExpirySchedule,
    taskQueue: options.taskQueue,
    args,
    staticSummary: 'Expires unpaid checkouts whose hold has run out and releases their stock',
  };
  await upsertSchedule(client, workflowIds.checkoutExpirySchedule, { intervals: [{ every: options.everyMs }] }, action);
}
