import { Context } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import { createDefaultReviews } from '../src/services/reviews/default-reviews';
import { ReviewWindows } from '../src/services/reviews/review-windows';
import { WorkflowStarters } from '../src/temporal/starters';

export interface ReviewActivityDeps {
  db: DataSource;
  /** REVIEW_WINDOW_SECONDS: how long parties have to review each other after completion. */
  reviewWindowSeconds: number;
}

export interface ReviewActivities {
  /** Automatic reviews for every missing direction of every order of the purchase; idempotent. */
  createDefaultReviews(purchaseId: string): Promise<number>;
}

export function createReviewActivities({ db }: ReviewActivityDeps): ReviewActivities {
  return { createDefaultReviews: (purchaseId) => createDefaultReviews(db, purchaseId) };
}

/**
 * Review windows opened from inside an activity (a purchase completed by the automatic receipt):
 * started through the worker's own client on the worker's task queue. A failed start is logged;
 * the API's reconciliation opens that window later.
 */
export function activityReviewWindows({ db, reviewWindowSeconds }: ReviewActivityDeps): ReviewWindows {
  return new ReviewWindows(db, {
    start: (purchaseId, completedAt) => {
      const ctx = Context.current();
      return new WorkflowStarters(ctx.client, ctx.info.taskQueue).reviewWindow(purchaseId, completedAt, reviewWindowSeconds);
    },
    onStartFailed: (purchaseId, err) => Context.current().log.warn('review window not started; reconciliation will retry', { purchaseId, err: String(err) }),
  });
}
