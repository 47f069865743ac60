import { WorkflowExecutionAlreadyStartedError, type Client, type Workflow, type WorkflowStartOptions } from '@temporalio/client';
import type {
  caseWorkflow,
  checkoutWorkflow,
  emailChangeWorkflow,
  listingImportWorkflow,
  orderReceiptWorkflow,
  reviewWindowWorkflow,
  webhookDeliveryWorkflow,
} from '../../workflows';
import { CASE_SEARCH_ATTRIBUTES } from '../../workflows/case-search-attributes';
import type { WebhookDeliveryInput } from '../../workflows/webhook-delivery';
import type { OpenedCase } from '../services/cases/case-opening';
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
    await this.start<typeof emailChangeWorkflow>('emailChangeWorkflow', workflowIds.emailChange(requestId), [{ requestId }]);
  }

  /**
   * Starts the delivery of one event to one endpoint. A dispatch never reruns a delivery that
   * already ran (REJECT_DUPLICATE: re-dispatching after a lost stamp is harmless); a replay
   * explicitly does. Returns false when the workflow exists already (a replay: still running).
   */
  webhookDelivery(input: WebhookDeliveryInput, options: { replay: boolean }): Promise<boolean> {
    return this.start<typeof webhookDeliveryWorkflow>(
      'webhookDeliveryWorkflow',
      workflowIds.webhookDelivery(input.eventId, input.endpointId),
      [input],
      { workflowIdReusePolicy: options.replay ? 'ALLOW_DUPLICATE' : 'REJECT_DUPLICATE' },
    );
  }

  async listingImport(importId: string): Promise<void> {
    await this.start<typeof listingImportWorkflow>('listingImportWorkflow', workflowIds.import(importId), [{ importId }]);
  }

  async checkout(sessionId: string, holdSeconds: number): Promise<void> {
    await this.start<typeof checkoutWorkflow>('checkoutWorkflow', workflowIds.checkout(sessionId), [{ sessionId, holdSeconds }]);
  }

  /** Tells `checkout:{sessionId}` its payment settled (the signal name is the workflow's). */
  async checkoutSettled(sessionId: string): Promise<void> {
    await this.client.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      this.client.workflow.getHandle(workflowIds.checkout(sessionId)).signal('paymentSettled'),
    );
  }

  /** `case:{caseId}`, indexed by its search attributes from the start (docs/cases.md). */
  async startCase(opened: OpenedCase, autoEscalateSeconds: number): Promise<void> {
    await this.start<typeof caseWorkflow>(
      'caseWorkflow',
      workflowIds.case(opened.caseId),
      [{ caseId: opened.caseId, outcomes: opened.outcomes, autoEscalateAfterMs: autoEscalateSeconds * 1000, indexed: true }],
      {
        typedSearchAttributes: [
          { key: CASE_SEARCH_ATTRIBUTES.status, value: 'OPEN' },
          { key: CASE_SEARCH_ATTRIBUTES.reason, value: opened.reason },
          { key: CASE_SEARCH_ATTRIBUTES.sellerId, value: opened.sellerId },
          { key: CASE_SEARCH_ATTRIBUTES.orderId, value: opened.orderId },
        ],
      },
    );
  }

  async orderReceipt(orderId: string, afterSeconds: number): Promise<void> {
    await this.start<typeof orderReceiptWorkflow>('orderReceiptWorkflow', workflowIds.orderReceipt(orderId), [{ orderId, afterSeconds }]);
  }

  /**
   * One window per purchase, ever: REJECT_DUPLICATE keeps a late or repeated start (the
   * reconciliation, a retried request) from opening a second window after the first closed.
   */
  async reviewWindow(purchaseId: string, completedAt: Date, windowSeconds: number): Promise<void> {
    await this.start<typeof reviewWindowWorkflow>(
      'reviewWindowWorkflow',
      workflowIds.reviewWindow(purchaseId),
      [{ purchaseId, completedAt: completedAt.toISOString(), windowSeconds }],
      { workflowIdReusePolicy: 'REJECT_DUPLICATE' },
    );
  }

  /**
   * Starts a workflow within START_DEADLINE_MS. Returns false when the id is taken, which callers
   * treat as already started. `W` types the arguments at each call site.
   */
  private async start<W extends Workflow>(
    type: string,
    workflowId: string,
    args: Parameters<W>,
    options: Pick<WorkflowStartOptions, 'workflowIdReusePolicy' | 'typedSearchAttributes'> = {},
  ): Promise<boolean> {
    try {
      await this.client.withDeadline(Date.now() + START_DEADLINE_MS, () =>
        this.client.workflow.start<Workflow>(type, { ...options, workflowId, taskQueue: this.taskQueue, args }),
      );
      return true;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      return false;
    }
  }
}
