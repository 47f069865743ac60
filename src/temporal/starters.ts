import { WorkflowExecutionAlreadyStartedError, type Client, type Workflow } from '@temporalio/client';
import type { caseWorkflow, checkoutWorkflow, emailChangeWorkflow, listingImportWorkflow, orderReceiptWorkflow } from '../../workflows';
import type { SearchAttributePair } from '@temporalio/common';
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
    await this.startBounded<typeof checkoutWorkflow>('checkoutWorkflow', workflowIds.checkout(sessionId), [{ sessionId, holdSeconds }]);
  }

  /** Tells `checkout:{sessionId}` its payment settled (the signal name is the workflow's). */
  async checkoutSettled(sessionId: string): Promise<void> {
    await this.client.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      this.client.workflow.getHandle(workflowIds.checkout(sessionId)).signal('paymentSettled'),
    );
  }

  /** `case:{caseId}`, indexed by its search attributes from the start (docs/cases.md). */
  async startCase(opened: OpenedCase, autoEscalateSeconds: number): Promise<void> {
    await this.startBounded<typeof caseWorkflow>(
      'caseWorkflow',
      workflowIds.case(opened.caseId),
      [{ caseId: opened.caseId, outcomes: opened.outcomes, autoEscalateAfterMs: autoEscalateSeconds * 1000, indexed: true }],
      [
        { key: CASE_SEARCH_ATTRIBUTES.status, value: 'OPEN' },
        { key: CASE_SEARCH_ATTRIBUTES.reason, value: opened.reason },
        { key: CASE_SEARCH_ATTRIBUTES.sellerId, value: opened.sellerId },
        { key: CASE_SEARCH_ATTRIBUTES.orderId, value: opened.orderId },
      ],
    );
  }

  async orderReceipt(orderId: string, afterSeconds: number): Promise<void> {
    await this.startBounded<typeof orderReceiptWorkflow>('orderReceiptWorkflow', workflowIds.orderReceipt(orderId), [{ orderId, afterSeconds }]);
  }

  /**
   * Starts a workflow within START_DEADLINE_MS; an already-running one counts as started. `W`
   * types the arguments at each call site; search attributes index it for operators.
   */
  private async startBounded<W extends Workflow>(
    type: string,
    workflowId: string,
    args: Parameters<W>,
    typedSearchAttributes: SearchAttributePair[] = [],
  ): Promise<void> {
    await this.idempotent(() =>
      this.client.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
        this.client.workflow.start<Workflow>(type, { workflowId, taskQueue: this.taskQueue, args, typedSearchAttributes }),
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
