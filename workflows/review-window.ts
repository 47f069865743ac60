import { sleep } from '@temporalio/workflow';
import type { ReviewActivities } from '../activities/reviews';
import { BOUNDED_RETRY, boundedActivities } from './bounded-activities';

const { createDefaultReviews } = boundedActivities<ReviewActivities>({
  startToCloseTimeout: '1 minute',
  retry: { ...BOUNDED_RETRY, maximumInterval: '5 minutes' },
});

export interface ReviewWindowInput {
  purchaseId: string;
  /** ISO 8601: the window closes `windowSeconds` after it. */
  completedAt: string;
  windowSeconds: number;
}

/**
 * `review-window:{purchaseId}`: started when a purchase completes. Parties review each other
 * during the window; when it closes, whatever is still missing becomes an automatic 5-star
 * review. The length comes in as an argument (REVIEW_WINDOW_SECONDS, read by the starter) so
 * the workflow stays deterministic. Returns how many automatic reviews were created.
 */
export async function reviewWindowWorkflow(input: ReviewWindowInput): Promise<number> {
  // Measured from the completion, so a window started late (its start waited out a Temporal
  // outage) still closes on time. Date.now() is workflow time here: deterministic, and skipped
  // by the test server.
  const remainingMs = Date.parse(input.completedAt) + input.windowSeconds * 1000 - Date.now();
  if (remainingMs > 0) await sleep(remainingMs, { summary: 'review window: missing reviews default when it closes' });
  return createDefaultReviews(input.purchaseId);
}
