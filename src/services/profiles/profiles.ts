import type { DataSource } from 'typeorm';
import { Review } from '../../db/entities';
import { UUID_PATTERN } from '../../ids';
import { notFound } from '../errors';
import { toReviewViews, type ReviewView } from '../reviews/review-view';
import { toUserSummary, userSummaryColumns, type UserSummary, type UserSummaryRow } from '../users/user-summary';

export interface ReviewsPage {
  total: number;
  page: number;
  size: number;
  reviews: ReviewView[];
}

/** Public profiles: a user's summary and the reviews they received, by id or username. */
export class Profiles {
  constructor(private readonly db: DataSource) {}

  /** `identifier` is a user id (UUID) or a username, matched case-insensitively. */
  async summary(identifier: string): Promise<UserSummary> {
    const byId = UUID_PATTERN.test(identifier.toLowerCase());
    const [row]: UserSummaryRow[] = await this.db.query(
      `SELECT ${userSummaryColumns('u')} FROM users u WHERE ${byId ? 'u.id = $1::uuid' : 'lower(u.username) = lower($1)'}`,
      [identifier],
    );
    if (!row) throw notFound('Profile');
    return toUserSummary(row);
  }

  /** Reviews the user received, newest first. */
  async reviewsReceived(identifier: string, page: number, size: number): Promise<ReviewsPage> {
    const { id } = await this.summary(identifier);
    const [reviews, total] = await this.db
      .getRepository(Review)
      .createQueryBuilder('r')
      .where('r.reviewed_user_id = :id', { id })
      .orderBy('r.created_at', 'DESC')
      .addOrderBy('r.id', 'DESC')
      .offset((page - 1) * size)
      .limit(size)
      .getManyAndCount();
    return { total, page, size, reviews: await toReviewViews(this.db, reviews) };
  }
}
