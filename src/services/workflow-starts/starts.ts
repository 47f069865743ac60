import type { WorkflowInputs } from '../../../workflows/contracts/inputs';
import { workflowIds } from '../../temporal/workflow-ids';
import { workflowStarts, type WorkflowStart } from './start';

/**
 * Typed by `workflows/contracts/inputs.ts`, the inputs of the workflows whose starts are still
 * built here: services import these builders directly, and a type-only import of the workflow
 * code from here would close an import cycle (workflow → activity types → services → here). A
 * feature module's own workflows are typed by their functions instead (src/modules/workflow-start.ts).
 */
const start = workflowStarts<{ [T in keyof WorkflowInputs]: (input: WorkflowInputs[T]) => Promise<unknown> }>();

/**
 * The workflow starts that services still import directly, most of them requested deep inside
 * shared rules (an order's receipt requests its funds release in the order's transaction): ids,
 * types and argument shapes are decided here, and `requestWorkflowStart` writes the result into
 * the caller's transaction. Each moves to the feature module that owns its workflow once its
 * services take it as a port (docs/architecture.md, "Background work").
 */
export const starts = {
  /** The delivery of one message an action queued in the e-mail outbox. */
  emailDelivery(messageId: string): WorkflowStart {
    return start(
      'emailDeliveryWorkflow',
      workflowIds.emailDelivery(messageId),
      { messageId },
      { summary: `Delivery of e-mail ${messageId}` },
    );
  },
};
