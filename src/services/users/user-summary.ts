import type { DataSource, EntityManager } from 'typeorm';
import { prepared, queryPrepared } from '../../db/prepared';

/** The spec's "User summary", shown for sellers, senders, reviewed users and buyers. */
export interface UserSummary {
  id: string;
  username: string;
  reviews: number;
  rating: number;
  score: number;
  sales: number;
  purchases: number;
  joined: Date;
  avatar: string | null;
  cover: string | null;
  profile: string | null;
}

/**
 * `score` ranks users fairly across review counts: a Bayesian average that starts every user
 * at PRIOR_RATING as if they had PRIOR_REVIEWS reviews, so one 5-star review does not outrank
 * two hundred 4.9 averages. `rating` is the plain mean. Both have two decimals.
 */
export const PRIOR_REVIEWS = 5;
export const PRIOR_RATING = 4;

const round2 = (n: number) => Math.round(n * 100) / 100;

export function ratingOf(reviewsCount: number, ratingSum: number): number {
  return reviewsCount === 0 ? 0 : round2(ratingSum / reviewsCount);
}

export function scoreOf(reviewsCount: number, ratingSum: number): number {
  return round2((ratingSum + PRIOR_RATING * PRIOR_REVIEWS) / (reviewsCount + PRIOR_REVIEWS));
}

/** Columns a user summary needs, for joining into other queries: `${userSummaryColumns('u')}`. */
export const userSummaryColumns = (alias: string) =>
  ['id', 'username', 'reviews_count', 'rating_sum', 'sales_count', 'purchases_count', 'created_at', 'avatar_url', 'cover_url', 'profile']
    .map((c) => `${alias}.${c}`)
    .join(', ');

export interface UserSummaryRow {
  id: string;
  username: string;
  reviews_count: number;
  rating_sum: number;
  sales_count: number;
  purchases_count: number;
  created_at: Date;
  avatar_url: string | null;
  cover_url: string | null;
  profile: string | null;
}

export function toUserSummary(row: UserSummaryRow): UserSummary {
  return {
    id: row.id,
    username: row.username,
    reviews: row.reviews_count,
    rating: ratingOf(row.reviews_count, row.rating_sum),
    score: scoreOf(row.reviews_count, row.rating_sum),
    sales: row.sales_count,
    purchases: row.purchases_count,
    joined: row.created_at,
    avatar: row.avatar_url,
    cover: row.cover_url,
    profile: row.profile,
  };
}

const USER_SUMMARIES = prepared('user-summaries', `SELECT ${userSummaryColumns('u')} FROM users u WHERE u.id = ANY($1::uuid[])`);

/** Summaries of many users in one query, keyed by id. */
export async function loadUserSummaries(db: DataSource | EntityManager, ids: string[]): Promise<Map<string, UserSummary>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await queryPrepared<UserSummaryRow>(db, USER_SUMMARIES, [unique]);
  return new Map(rows.map((r) => [r.id, toUserSummary(r)]));
}
