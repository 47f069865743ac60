import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, startChild } from '@temporalio/workflow';
import type { WorkflowStart } from '../src/services/workflow-starts/start';
import { startOptionsOf } from './contracts/start-options';

/**
 * Starts workflows from inside a workflow as children, from the same start intents the start
 * outbox takes (built by the owning module's start, src/modules/*.ts, in an activity, so the ids,
 * inputs, summaries and search attributes have one source). Each child outlives its parent
 * (ABANDON: a payout goes on after the run that requested it ends). A child whose id is already
 * taken (REJECT_DUPLICATE: the same run date again) counts as done, as the outbox treats it.
 * Signal-with-start has no child form: such intents belong in the outbox.
 * Answers how many this call started.
 */
export async function startChildren(starts: WorkflowStart[]): Promise<number> {
  const started = await Promise.all(
    starts.map(async (start) => {
      if (start.options?.signal) throw new Error(`${start.workflowId}: a signal-with-start cannot be a child workflow`);
      try {
        await startChild(start.workflowType, { ...startOptionsOf(start), parentClosePolicy: ParentClosePolicy.ABANDON });
        return 1;
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return 0;
        throw err;
      }
    }),
  );
  return started.reduce<number>((a, b) => a + b, 0);
}
