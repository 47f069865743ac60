import {
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptionsAction,
  type ScheduleSpec,
} from '@temporalio/client';
import type { outboxRetentionWorkflow } from '../../workflows/retention';

export const RETENTION_SCHEDULE_ID = 'outbox-retention';

export interface RetentionScheduleOptions {
  taskQueue: string;
  everyMs: number;
  olderThanMs: number;
}

/**
 * Creates the Temporal Schedule that runs `outboxRetentionWorkflow`, or brings an existing one
 * in line with this process's configuration. Every worker replica calls it at start: one
 * creates, the others update to the same settings. Overlapping runs are skipped, so a slow pass
 * is never doubled.
 */
export async function ensureRetentionSchedule(client: Client, options: RetentionScheduleOptions): Promise<void> {
  const spec: ScheduleSpec = { intervals: [{ every: options.everyMs }] };
  const action: ScheduleOptionsAction = {
    type: 'startWorkflow',
    workflowType: 'outboxRetentionWorkflow',
    workflowId: RETENTION_SCHEDULE_ID,
    taskQueue: options.taskQueue,
    args: [{ olderThanMs: options.olderThanMs }] satisfies Parameters<typeof outboxRetentionWorkflow>,
    staticSummary: `Prunes outbox and webhook attempt rows older than ${Math.round(options.olderThanMs / 3_600_000)} h`,
  };
  try {
    await client.schedule.create({
      scheduleId: RETENTION_SCHEDULE_ID,
      spec,
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(RETENTION_SCHEDULE_ID).update((previous) => ({ ...previous, spec, action }));
  }
}
