import type { EntityManager } from 'typeorm';

/**
 * The one place a user's review aggregates (`reviews_count`, `rating_sum`) change. Always called
 * in the transaction that writes the review, as a single relative UPDATE: no read-modify-write,
 * so concurrent reviews of the same user each add their own delta and none is lost.
 * `rating` and `score` are derived from the two columns (see users/user-summary.ts).
 */
export async function adjustReviewAggregates(
  tx: EntityManager,
  userId: string,
  delta: { count: number; ratingSum: number },
): Promise<void> {
  await tx.query(`UPDATE users SET reviews_count = reviews_count + $2, rating_sum = rating_sum + $3 WHERE id = $1`, [
    userId,
    delta.count,
    delta.ratingSum,
  ]);
}

export const reviewAdded = (rating: number) => ({ count: 1, ratingSum: rating });
export const reviewRemoved = (rating: number) => ({ count: -1, ratingSum: -rating });
export const reviewRerated = (oldRating: number, newRating: number) => ({ count: 0, ratingSum: newRating - oldRating });
