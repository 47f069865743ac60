import type { DataSource } from 'typeorm';
import { UUID_PATTERN } from '../../ids';
import { notFound } from '../errors';
import { reviewsPage, type ReviewsPage } from '../reviews/review-pages';
import { toUserSummary, userSummaryColumns, type UserSummary, type UserSummaryRow } from '../users/user-summary';

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
    return reviewsPage(this.db, id, 'received', page, size);
  }
}
