import type { Client, ScheduleOptionsAction } from '@temporalio/client';
import type { WorkflowInput } from '../modules/workflow-start';
import { upsertSchedule } from './upsert-schedule';
import { workflowIds } from './workflow-ids';

/**
 * Creates or updates the `upload-collector` Schedule: every `everyMs` it starts
 * `uploadCollectorWorkflow`, which deletes uploads left unattached for `olderThanMs`
 * (docs/seller-listings.md, "Quota and collection").
 */
export async function ensureUploadCollectorSchedule(
  client: Client,
  options: { taskQueue: string; everyMs: number; olderThanMs: number },
): Promise<void> {
  const args: [WorkflowInput<'uploadCollectorWorkflow'>] = [{ olderThanMs: options.olderThanMs }];
  const action: ScheduleOptionsAction = {
    type: 'startWorkflow',
    workflowType: 'uploadCollectorWorkflow',
    workflowId: workflowIds.uploadCollectorSchedule,
    taskQueue: options.taskQueue,
    args,
    staticSummary: `Deletes uploads left unattached for ${Math.round(options.olderThanMs / 3_600_000)} h and their bytes`,
  };
  await upsertSchedule(client, workflowIds.uploadCollectorSchedule, { intervals: [{ every: options.everyMs }] }, action);
}
