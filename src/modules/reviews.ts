import { createReviewActivities } from '../../activities/reviews';
import { reviewRoutes } from '../http/routes/reviews';
import type { ReviewWindowStart } from '../services/reviews/review-windows';
import { Reviews } from '../services/reviews/reviews';
import type { FeatureModule } from './feature-module';
import { start } from './workflow-start';

/** What the review routes use. */
export interface ReviewsServices {
  reviews: Reviews;
}

/** The ids of this feature's workflows: an operator finds one from the object's id. */
export const reviewsWorkflowIds = {
  reviewWindow: (purchaseId: string) => `review-window:${purchaseId}`,
};

/** One window per purchase, ever: requested by the settlement rule that completes the purchase. */
export const reviewWindowStart: ReviewWindowStart = (purchaseId, completedAt, windowSeconds) =>
  start(
    'reviewWindowWorkflow',
    reviewsWorkflowIds.reviewWindow(purchaseId),
    { purchaseId, completedAt: completedAt.toISOString(), windowSeconds },
    {
      summary: `Review window of purchase ${purchaseId}, closing ${new Date(completedAt.getTime() + windowSeconds * 1000).toISOString()}`,
    },
  );

/**
 * Reviews of completed orders, by buyer and seller (docs/reviews.md), and the
 * `review-window:{purchaseId}` workflow's activity that writes the default reviews when the window
 * closes.
 */
export const reviewsModule: FeatureModule<ReviewsServices> = {
  name: 'reviews',
  tags: {
    Reviews: 'Reviews of completed orders, by buyer and seller.',
  },
  api: {
    services: ({ db }) => ({ reviews: new Reviews(db) }),
    routes: (services) => reviewRoutes(services),
  },
  worker: {
    activities: ({ db }) => ({ ...createReviewActivities({ db }) }),
  },
};
