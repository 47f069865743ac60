import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { WorkflowInput } from '../modules/workflow-start';
import { workflowIds } from './workflow-ids';

/**
 * Creates the `payout-run` Schedule if it does not exist: every `intervalMs` (aligned to the Unix
 * epoch, so daily means 00:00 UTC) it starts `payoutRunWorkflow`. Run at every worker start, by
 * any number of replicas: the first creates it, the others find it there. An existing Schedule
 * is left as it is (an operator may have paused it or changed its spec). Returns whether it was
 * created now.
 */
export async function ensurePayoutSchedule(client: Client, options: { intervalMs: number; taskQueue: string }): Promise<boolean> {
  const args: [WorkflowInput<'payoutRunWorkflow'>] = [{}];
  try {
    await client.schedule.create({
      scheduleId: workflowIds.payoutRunSchedule,
      spec: { intervals: [{ every: options.intervalMs }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'payoutRunWorkflow',
        workflowId: workflowIds.payoutRunSchedule,
        taskQueue: options.taskQueue,
        args,
      },
      // A run still going when the next is due: skip the next rather than run two at once.
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    });
    return true;
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) return false;
    throw err;
  }
}
