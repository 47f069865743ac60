import type { DataSource } from 'typeorm';
import { Review } from '../../db/entities';
import { pageOf, type Page } from '../paging';
import { toReviewViews, type ReviewView } from './review-view';

export type ReviewsPage = Page<ReviewView>;

/** Whose reviews a page lists: those a user received, wrote, or both. */
export type ReviewRole = 'received' | 'written' | 'any';

const FILTERS: Record<ReviewRole, string> = {
  received: 'r.reviewed_user_id = :userId',
  written: 'r.reviewer_id = :userId',
  any: '(r.reviewed_user_id = :userId OR r.reviewer_id = :userId)',
};

/** One page of a user's reviews, newest first (ties broken by id so pages never overlap). */
export async function reviewsPage(db: DataSource, userId: string, role: ReviewRole, page: number, size: number): Promise<ReviewsPage> {
  const [reviews, total] = await db
    .getRepository(Review)
    .createQueryBuilder('r')
    .where(FILTERS[role], { userId })
    .andWhere('r.deleted_at IS NULL')
    .orderBy('r.created_at', 'DESC')
    .addOrderBy('r.id', 'DESC')
    .offset((page - 1) * size)
    .limit(size)
    .getManyAndCount();
  return pageOf(await toReviewViews(db, reviews), total, { page, size });
}
