import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { emailChangeWorkflow } from '../../workflows';
import { workflowIds } from './workflow-ids';

/**
 * Typed starters: the only way the API starts workflows, so ids, task queue and argument types
 * are decided in one place. Starting an already-running workflow is treated as success.
 */
export class WorkflowStarters {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  async emailChange(requestId: string): Promise<void> {
    await this.idempotent(() =>
      this.client.workflow.start<typeof emailChangeWorkflow>('emailChangeWorkflow', {
        workflowId: workflowIds.emailChange(requestId),
        taskQueue: this.taskQueue,
        args: [{ requestId }],
      }),
    );
  }

  private async idempotent(start: () => Promise<unknown>): Promise<void> {
    try {
      await start();
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }
}
