import Joi from '../../joi';
import { defineRoute } from '../route';
import { reviewsPage, userSummary } from '../schemas';
import type { Profiles } from '../../services/profiles/profiles';
import { pageQuery, SEARCH_CACHE } from './discover-common';

const identifier = Joi.object({
  identifier: Joi.string().max(64).required().description('User id (UUID) or username (case-insensitive).'),
});

/** The services these routes use (their feature module's, src/modules). */
export interface ProfileRouteServices {
  profiles: Profiles;
}

export const profileRoutes = (s: ProfileRouteServices) => [
  defineRoute<'publicProfile', 'public'>({
    operationId: 'publicProfile',
    method: 'get',
    path: '/profile/{identifier}',
    tag: 'Discover',
    summary: "A user's public summary: reviews, rating, score, sales, purchases, joined",
    auth: 'public',
    request: { params: identifier },
    responses: { 200: { description: 'User summary.', schema: userSummary }, 404: { description: 'No such user.' } },
    handler: async ({ params }) => ({
      status: 200,
      body: await s.profiles.summary(params.identifier),
      headers: { 'Cache-Control': SEARCH_CACHE },
    }),
  }),

  defineRoute<'profileReviews', 'public'>({
    operationId: 'profileReviews',
    method: 'get',
    path: '/profile/{identifier}/reviews',
    tag: 'Discover',
    summary: 'Reviews the user received, newest first',
    auth: 'public',
    request: { params: identifier, query: pageQuery },
    responses: {
      200: {
        description: 'One page of reviews received.',
        schema: reviewsPage,
      },
      404: { description: 'No such user.' },
    },
    handler: async ({ params, query }) => ({
      status: 200,
      body: await s.profiles.reviewsReceived(params.identifier, query.page, query.size),
      headers: { 'Cache-Control': SEARCH_CACHE },
    }),
  }),
];
