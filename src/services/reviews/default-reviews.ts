import type { DataSource } from 'typeorm';
import { newId } from '../../ids';
import { adjustReviewAggregates, reviewAdded } from './aggregates';

/** What a party who stayed silent through the review window "says". */
export const AUTOMATIC_REVIEW_RATING = 5;
export const AUTOMATIC_REVIEW_CONTENT = 'Automatic review: the trade completed without issues.';

/**
 * The review window's end: for every order of a completed purchase, the buyer→seller and
 * seller→buyer reviews that nobody wrote are created as automatic 5-star reviews, with the
 * reviewed user's aggregates, in one transaction. Reviews already written are left alone, and so
 * are reviews their author deleted (a withdrawn opinion is not replaced by a 5-star one). A
 * second run finds nothing missing (the unique constraint settles a race with a user writing at
 * that very moment). Returns how many reviews were created.
 */
export async function createDefaultReviews(db: DataSource, purchaseId: string): Promise<number> {
  return db.transaction(async (tx) => {
    const missing: Array<{ order_id: string; reviewer_id: string; reviewed_user_id: string }> = await tx.query(
      `SELECT o.id AS order_id, d.reviewer_id, d.reviewed_user_id
         FROM orders o
         JOIN purchases p ON p.id = o.purchase_id AND p.status = 'COMPLETED'
         CROSS JOIN LATERAL (VALUES (o.buyer_id, o.seller_id), (o.seller_id, o.buyer_id)) AS d(reviewer_id, reviewed_user_id)
        WHERE o.purchase_id = $1 AND o.buyer_id <> o.seller_id
          AND NOT EXISTS (SELECT 1 FROM reviews r WHERE r.order_id = o.id AND r.reviewer_id = d.reviewer_id)
        ORDER BY o.created_at, o.id, d.reviewer_id`,
      [purchaseId],
    );
    let created = 0;
    for (const m of missing) {
      const [inserted] = await tx.query(
        `INSERT INTO reviews (id, order_id, reviewer_id, reviewed_user_id, rating, content, automatic)
         VALUES ($1, $2, $3, $4, $5, $6, true)
         ON CONFLICT ON CONSTRAINT reviews_one_per_order_and_reviewer DO NOTHING RETURNING id`,
        [newId(), m.order_id, m.reviewer_id, m.reviewed_user_id, AUTOMATIC_REVIEW_RATING, AUTOMATIC_REVIEW_CONTENT],
      );
      if (!inserted) continue;
      await adjustReviewAggregates(tx, m.reviewed_user_id, reviewAdded(AUTOMATIC_REVIEW_RATING));
      created += 1;
    }
    return created;
  });
}
