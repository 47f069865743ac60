import type { Client } from '@temporalio/client';
import type { WorkflowStart } from '../services/workflow-starts';
import { TemporalStartExecutor } from './start-executor';

/**
 * For a request that waits a little for its workflow's answer (a basket optimization): the start
 * intent is already committed to the start outbox with the request's rows; this starts it at
 * once instead of waiting for the dispatcher (an id already started counts as started, so the
 * two never make two runs), then waits up to `waitMs` for the workflow to finish. Nothing polls:
 * the SDK long-polls the workflow's result. Temporal unreachable: the dispatcher starts it later,
 * and the caller answers "still running".
 */
export class PromptStarts {
  private readonly executor: TemporalStartExecutor;

  constructor(
    private readonly client: Client,
    taskQueue: string,
  ) {
    this.executor = new TemporalStartExecutor(client, taskQueue);
  }

  /** Whether the workflow finished (succeeded or failed) within `waitMs`. */
  async startAndWait(start: WorkflowStart, waitMs: number): Promise<boolean> {
    try {
      await this.executor.execute(start, { eager: false });
      await this.client.withDeadline(Date.now() + waitMs, () => this.client.workflow.getHandle(start.workflowId).result());
      return true;
    } catch {
      // Not started yet, still running at the deadline, or failed: the caller reads the record.
      return false;
    }
  }
}
