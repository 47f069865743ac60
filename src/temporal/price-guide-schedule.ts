import type { Client, ScheduleOptionsAction } from '@temporalio/client';
import type { WorkflowInput } from '../modules/workflow-start';
import { upsertSchedule } from './upsert-schedule';
import { workflowIds } from './workflow-ids';

/**
 * Creates or updates the `price-guide-rollup` Schedule: every `everyMs` it starts
 * `priceGuideRollupWorkflow`, which rolls the closed days' sales up (docs/price-guide.md).
 */
export async function ensurePriceGuideRollupSchedule(client: Client, options: { taskQueue: string; everyMs: number }): Promise<void> {
  const args: [WorkflowInput<'priceGuideRollupWorkflow'>] = [{}];
  const action: ScheduleOptionsAction = {
    type: 'startWorkflow',
    workflowType: 'priceGuideRollupWorkflow',
    workflowId: workflowIds.priceGuideRollupSchedule,
    taskQueue: options.taskQueue,
    args,
    staticSummary: "Rolls the closed days' completed sales up for the price guide",
  };
  await upsertSchedule(client, workflowIds.priceGuideRollupSchedule, { intervals: [{ every: options.everyMs }] }, action);
}
