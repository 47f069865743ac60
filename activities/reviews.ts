import type { DataSource } from 'typeorm';
import { createDefaultReviews } from '../src/services/reviews/default-reviews';

export interface ReviewActivityDeps {
  db: DataSource;
}

export interface ReviewActivities {
  /** Automatic reviews for every missing direction of every order of the purchase; idempotent. */
  createDefaultReviews(purchaseId: string): Promise<number>;
}

export function createReviewActivities({ db }: ReviewActivityDeps): ReviewActivities {
  return { createDefaultReviews: (purchaseId) => createDefaultReviews(db, purchaseId) };
}
