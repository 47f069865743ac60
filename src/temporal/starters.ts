import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { caseWorkflow, checkoutWorkflow, emailChangeWorkflow, listingImportWorkflow, orderReceiptWorkflow } from '../../workflows';
import { CASE_SEARCH_ATTRIBUTES } from '../../workflows/case-search-attributes';
import type { OpenedCase } from '../services/cases/case-opening';
import { workflowIds } from './workflow-ids';

/** How long a request waits for Temporal to accept a workflow start before giving up. */
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

  /** Bounded: an upload request answers 503 within seconds when Temporal is unreachable. */
  async listingImport(importId: string): Promise<void> {
    await this.idempotent(() =>
      this.client.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
        this.client.workflow.start<typeof listingImportWorkflow>('listingImportWorkflow', {
          workflowId: workflowIds.import(importId),
          taskQueue: this.taskQueue,
          args: [{ importId }],
        }),
      ),
    );
  }

  /** Bounded like listingImport: a checkout answers 503 quickly when Temporal is unreachable. */
  async checkout(sessionId: string, holdSeconds: number): Promise<void> {
    await this.idempotent(() =>
      this.client.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
        this.client.workflow.start<typeof checkoutWorkflow>('checkoutWorkflow', {
          workflowId: workflowIds.checkout(sessionId),
          taskQueue: this.taskQueue,
          args: [{ sessionId, holdSeconds }],
        }),
      ),
    );
  }

  /** Tells `checkout:{sessionId}` its payment settled (the signal name is the workflow's). */
  async checkoutSettled(sessionId: string): Promise<void> {
    await this.client.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      this.client.workflow.getHandle(workflowIds.checkout(sessionId)).signal('paymentSettled'),
    );
  }

  /** `case:{caseId}`, indexed by its search attributes from the start (docs/cases.md). */
  async startCase(opened: OpenedCase, autoEscalateSeconds: number): Promise<void> {
    await this.idempotent(() =>
      this.client.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
        this.client.workflow.start<typeof caseWorkflow>('caseWorkflow', {
          workflowId: workflowIds.case(opened.caseId),
          taskQueue: this.taskQueue,
          args: [{ caseId: opened.caseId, outcomes: opened.outcomes, autoEscalateAfterMs: autoEscalateSeconds * 1000, indexed: true }],
          typedSearchAttributes: [
            { key: CASE_SEARCH_ATTRIBUTES.status, value: 'OPEN' },
            { key: CASE_SEARCH_ATTRIBUTES.reason, value: opened.reason },
            { key: CASE_SEARCH_ATTRIBUTES.sellerId, value: opened.sellerId },
            { key: CASE_SEARCH_ATTRIBUTES.orderId, value: opened.orderId },
          ],
        }),
      ),
    );
  }

  async orderReceipt(orderId: string, afterSeconds: number): Promise<void> {
    await this.idempotent(() =>
      this.client.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
        this.client.workflow.start<typeof orderReceiptWorkflow>('orderReceiptWorkflow', {
          workflowId: workflowIds.orderReceipt(orderId),
          taskQueue: this.taskQueue,
          args: [{ orderId, afterSeconds }],
        }),
      ),
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
