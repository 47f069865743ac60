import type { DataSource, EntityManager } from 'typeorm';
import type { Review } from '../../db/entities';
import { loadUserSummaries, type UserSummary } from '../users/user-summary';

/**
 * The spec's Review resource. `reviewer` (the author) is an addition: "reviews received" on a
 * profile would otherwise not say who wrote them. `automatic` marks default 5-star reviews.
 */
export interface ReviewView {
  id: string;
  rating: number;
  revisions: number;
  source: { id: string; type: 'ORDER' };
  reviewedUser: UserSummary | null;
  reviewer: UserSummary | null;
  content: string | null;
  automatic: boolean;
  createdAt: Date;
}

/** Maps reviews to views with both parties' summaries loaded in one query. */
export async function toReviewViews(db: DataSource | EntityManager, reviews: Review[]): Promise<ReviewView[]> {
  const users = await loadUserSummaries(
    db,
    reviews.flatMap((r) => [r.reviewerId, r.reviewedUserId]),
  );
  return reviews.map((r) => ({
    id: r.id,
    rating: r.rating,
    revisions: r.revisions,
    source: { id: r.orderId, type: 'ORDER' },
    reviewedUser: users.get(r.reviewedUserId) ?? null,
    reviewer: users.get(r.reviewerId) ?? null,
    content: r.content,
    automatic: r.automatic,
    createdAt: r.createdAt,
  }));
}
