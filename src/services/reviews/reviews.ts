import type { DataSource, EntityManager } from 'typeorm';
import { Review } from '../../db/entities';
import { newId } from '../../ids';
import { conflict, forbidden, notFound } from '../errors';
import { adjustReviewAggregates, reviewAdded, reviewRemoved, reviewRerated } from './aggregates';
import { sanitizeReviewContent } from './content';
import { reviewsPage, type ReviewRole, type ReviewsPage } from './review-pages';
import { toReviewViews, type ReviewView } from './review-view';

/** A review may be revised this many times (the spec's limit). */
export const MAX_REVISIONS = 1;

export interface NewReview {
  orderId: string;
  rating: number;
  content?: string;
}

export interface Revision {
  rating: number;
  content?: string;
}

/**
 * Reviews written by users through the API. The rules (docs/reviews.md): only the buyer and the
 * seller of an order review each other, once each, once the order has been received; the author
 * alone revises (once) or deletes (for good). Every write adjusts the reviewed user's aggregates in its own
 * transaction. Ownership is part of each statement's WHERE clause, so a review or order the
 * caller has no part in is "not found", exactly like a missing one.
 */
export class Reviews {
  constructor(private readonly db: DataSource) {}

  async create(reviewerId: string, input: NewReview): Promise<ReviewView> {
    const id = await this.db.transaction(async (tx) => {
      const [order]: Array<{ buyer_id: string; seller_id: string; status: string }> = await tx.query(
        `SELECT buyer_id, seller_id, status FROM orders WHERE id = $1 AND (buyer_id = $2 OR seller_id = $2)`,
        [input.orderId, reviewerId],
      );
      if (!order) throw notFound('Order');
      if (order.buyer_id === order.seller_id) throw forbidden('self-review', 'Nobody can review themself.');
      if (order.status !== 'RECEIVED') throw conflict('order-not-received', 'Reviews open once the buyer has received the order.');
      const reviewedUserId = order.buyer_id === reviewerId ? order.seller_id : order.buyer_id;
      // The unique constraint decides duplicates, so two concurrent first reviews cannot both win.
      const [inserted]: Array<{ id: string }> = await tx.query(
        `INSERT INTO reviews (id, order_id, reviewer_id, reviewed_user_id, rating, content)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT ON CONSTRAINT reviews_one_per_order_and_reviewer DO NOTHING RETURNING id`,
        [newId(), input.orderId, reviewerId, reviewedUserId, input.rating, sanitizeReviewContent(input.content)],
      );
      if (!inserted) throw conflict('review-exists', 'You have already reviewed this order (a deleted review is not written again).');
      await adjustReviewAggregates(tx, reviewedUserId, reviewAdded(input.rating));
      return inserted.id;
    });
    return this.view(this.db.manager, id);
  }

  /** The author's one revision. Revising an automatic review makes it the author's own. */
  async revise(reviewerId: string, reviewId: string, revision: Revision): Promise<ReviewView> {
    return this.db.transaction(async (tx) => {
      // The row lock makes concurrent revisions queue; the second then sees revisions = 1.
      const [[revised]]: [Array<{ reviewed_user_id: string; old_rating: number }>] = await tx.query(
        `WITH old AS (SELECT id, rating FROM reviews WHERE id = $1 AND reviewer_id = $2 AND deleted_at IS NULL FOR UPDATE)
         UPDATE reviews r SET rating = $3, content = $4, revisions = r.revisions + 1, automatic = false, updated_at = now()
           FROM old WHERE r.id = old.id AND r.revisions < $5
         RETURNING r.reviewed_user_id, old.rating AS old_rating`,
        [reviewId, reviewerId, revision.rating, sanitizeReviewContent(revision.content), MAX_REVISIONS],
      );
      if (!revised) {
        const [mine] = await tx.query(`SELECT 1 FROM reviews WHERE id = $1 AND reviewer_id = $2 AND deleted_at IS NULL`, [
          reviewId,
          reviewerId,
        ]);
        if (!mine) throw notFound('Review');
        throw conflict('review-revision-limit', 'This review has already been revised; a review may be revised once.');
      }
      await adjustReviewAggregates(tx, revised.reviewed_user_id, reviewRerated(revised.old_rating, revision.rating));
      return this.view(tx, reviewId);
    });
  }

  /**
   * Deleting leaves a tombstone: the review disappears from every read and from the aggregates,
   * but its (order, reviewer) slot stays taken, so delete-and-write-again cannot get around the
   * one-revision limit, and the review window does not replace a withdrawn review.
   */
  async remove(reviewerId: string, reviewId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const [[removed]]: [Array<{ reviewed_user_id: string; rating: number }>] = await tx.query(
        `UPDATE reviews SET deleted_at = now() WHERE id = $1 AND reviewer_id = $2 AND deleted_at IS NULL RETURNING reviewed_user_id, rating`,
        [reviewId, reviewerId],
      );
      if (!removed) throw notFound('Review');
      await adjustReviewAggregates(tx, removed.reviewed_user_id, reviewRemoved(removed.rating));
    });
  }

  list(userId: string, role: ReviewRole, page: number, size: number): Promise<ReviewsPage> {
    return reviewsPage(this.db, userId, role, page, size);
  }

  private async view(db: EntityManager, id: string): Promise<ReviewView> {
    const review = await db.getRepository(Review).findOneByOrFail({ id });
    const [view] = await toReviewViews(db, [review]);
    return view!;
  }
}
