import type { Client, ScheduleOptionsAction } from '@temporalio/client';
import type { outboxRetentionWorkflow } from '../../workflows/retention';
import { upsertSchedule } from './upsert-schedule';

export const RETENTION_SCHEDULE_ID = 'outbox-retention';

export interface RetentionScheduleOptions {
  taskQueue: string;
  everyMs: number;
  olderThanMs: number;
}

/** Creates or updates the Temporal Schedule that runs `outboxRetentionWorkflow` every `everyMs`. */
export async function ensureRetentionSchedule(client: Client, options: RetentionScheduleOptions): Promise<void> {
  const action: ScheduleOptionsAction = {
    type: 'startWorkflow',
    workflowType: 'outboxRetentionWorkflow',
    workflowId: RETENTION_SCHEDULE_ID,
    taskQueue: options.taskQueue,
    args: [{ olderThanMs: options.olderThanMs }] satisfies Parameters<typeof outboxRetentionWorkflow>,
    staticSummary: `Prunes outbox and webhook attempt rows older than ${Math.round(options.olderThanMs / 3_600_000)} h`,
  };
  await upsertSchedule(client, RETENTION_SCHEDULE_ID, { intervals: [{ every: options.everyMs }] }, action);
}
