import { WithStartWorkflowOperation, type Workflow } from '@temporalio/client';
import type { WorkflowStart } from '../services/workflow-starts';
import { startOptionsOf } from '../../workflows/contracts/start-options';

/**
 * The start half of a party's update-with-start: the workflow's own outbox start (same id, input
 * and options), so a workflow whose start still waits in the start outbox is started by the
 * party's first action and no request waits for the dispatcher. USE_EXISTING: a running workflow
 * takes the Update and the start is ignored. A finished one is not started again (the start's
 * REJECT_DUPLICATE): Temporal refuses with WorkflowExecutionAlreadyStartedError. The outbox start
 * made afterwards finds the id taken and counts as done (`TemporalStartExecutor`).
 */
export function startHalfOf(start: WorkflowStart, taskQueue: string): WithStartWorkflowOperation<Workflow> {
  return new WithStartWorkflowOperation<Workflow>(start.workflowType, {
    ...startOptionsOf(start),
    taskQueue,
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
}
