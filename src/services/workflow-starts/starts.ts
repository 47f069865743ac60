import type { WorkflowInputs } from '../../../workflows/contracts/inputs';
import { offerChangedSignal } from '../../../workflows/contracts/offer';
import { newId } from '../../ids';
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
  /** `offer:{offerId}` as the offer's creation starts it (docs/offers.md). */
  offer(offerId: string, listingId: string): WorkflowStart {
    return start('offerWorkflow', workflowIds.offer(offerId), { offerId }, { summary: `Offer ${offerId} on listing ${listingId}` });
  },

  /**
   * The offer's listing or payment changed: `offerChanged` signalled to `offer:{offerId}` (a
   * signal-with-start, ordered after the offer's own start in the outbox), so the workflow reads
   * the offer again. An offer whose workflow has ended is not started again (REJECT_DUPLICATE).
   * Each change is its own request.
   */
  offerChanged(offerId: string): WorkflowStart {
    return start(
      'offerWorkflow',
      workflowIds.offer(offerId),
      { offerId },
      { signal: { name: offerChangedSignal.name, args: [] } },
      `changed:${newId()}`,
    );
  },

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
