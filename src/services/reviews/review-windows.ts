import type { EntityManager } from 'typeorm';
import { requestWorkflowStart, type WorkflowStart } from '../workflow-starts';

/** `review-window:{purchaseId}`, built by the reviews module (src/modules/reviews.ts). */
export type ReviewWindowStart = (purchaseId: string, completedAt: Date, windowSeconds: number) => WorkflowStart;

/**
 * Requests `review-window:{purchaseId}` for a purchase completed in this transaction, closing
 * `windowSeconds` after its completion. Written with the completion, so every completed purchase
 * gets its window exactly once, whether or not Temporal is up at that moment.
 */
export async function requestReviewWindow(
  tx: EntityManager,
  purchaseId: string,
  windowSeconds: number,
  reviewWindow: ReviewWindowStart,
): Promise<void> {
  const [purchase]: Array<{ completed_at: Date }> = await tx.query(
    `SELECT completed_at FROM purchases WHERE id = $1 AND status = 'COMPLETED'`,
    [purchaseId],
  );
  if (purchase) await requestWorkflowStart(tx, reviewWindow(purchaseId, purchase.completed_at, windowSeconds));
}
