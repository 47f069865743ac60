import { createReviewActivities } from '../../activities/reviews';
import { reviewRoutes } from '../http/routes/reviews';
import { Reviews } from '../services/reviews/reviews';
import type { FeatureModule } from './feature-module';

/** What the review routes use. */
export interface ReviewsServices {
  reviews: Reviews;
}

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
