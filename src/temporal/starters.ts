import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { emailChangeWorkflow, listingImportWorkflow, webhookDeliveryWorkflow } from '../../workflows';
import type { WebhookDeliveryInput } from '../../workflows/webhook-delivery';
import { workflowIds } from './workflow-ids';

/**
 * How long a caller waits for Temporal to accept a workflow start before giving up, so an
 * unreachable Temporal fails a request (503) or a dispatch pass promptly instead of after the
 * SDK's long connection retries.
 */
const START_DEADLINE_MS = 5000;

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

  /**
   * Starts the delivery of one event to one endpoint. A dispatch never reruns a delivery that
   * already ran (REJECT_DUPLICATE: re-dispatching after a lost stamp is harmless); a replay
   * explicitly does. Returns false when the workflow exists already (a replay: still running).
   */
  async webhookDelivery(input: WebhookDeliveryInput, options: { replay: boolean }): Promise<boolean> {
    return this.idempotent(() =>
      this.client.withDeadline(Date.now() + START_DEADLINE_MS, () =>
        this.client.workflow.start<typeof webhookDeliveryWorkflow>('webhookDeliveryWorkflow', {
          workflowId: workflowIds.webhookDelivery(input.eventId, input.endpointId),
          taskQueue: this.taskQueue,
          args: [input],
          workflowIdReusePolicy: options.replay ? 'ALLOW_DUPLICATE' : 'REJECT_DUPLICATE',
        }),
      ),
    );
  }

  async listingImport(importId: string): Promise<void> {
    await this.idempotent(() =>
      this.client.withDeadline(Date.now() + START_DEADLINE_MS, () =>
        this.client.workflow.start<typeof listingImportWorkflow>('listingImportWorkflow', {
          workflowId: workflowIds.import(importId),
          taskQueue: this.taskQueue,
          args: [{ importId }],
        }),
      ),
    );
  }

  /** Returns false when the workflow id is taken, which callers treat as already done. */
  private async idempotent(start: () => Promise<unknown>): Promise<boolean> {
    try {
      await start();
      return true;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      return false;
    }
  }
}
