import Joi from '../../joi';
import { MAX_REVIEW_CONTENT } from '../../services/reviews/content';
import type { NewReview } from '../../services/reviews/reviews';
import { defineRoute } from '../route';
import { review, reviewsPage } from '../schemas';
import type { Reviews } from '../../services/reviews/reviews';
import { pageQuery } from './discover-common';

const idParams = Joi.object({ id: Joi.string().uuid().required() });
const rating = Joi.number().integer().min(1).max(5).required().description('Whole stars, 1 to 5.');
const content = Joi.string().allow('').max(MAX_REVIEW_CONTENT).description('Plain text; any markup is removed before saving.');

/** The services these routes use (their feature module's, src/modules). */
export interface ReviewRouteServices {
  reviews: Reviews;
}

export const reviewRoutes = (s: ReviewRouteServices) => [
  defineRoute<'createReview', 'user'>({
    operationId: 'createReview',
    method: 'post',
    path: '/user/reviews',
    tag: 'Reviews',
    summary: 'Review the other party of an order you bought or sold',
    description:
      'Once the order is received, its buyer reviews the seller and its seller reviews the buyer, once each. See docs/reviews.md.',
    auth: 'user',
    request: {
      body: Joi.object({
        source: Joi.object({ type: Joi.string().valid('ORDER').required(), id: Joi.string().uuid().required() }).required(),
        rating,
        content,
      }).example({
        source: { type: 'ORDER', id: '0191f3c2-cf93-7076-a8c9-0d1e2f304152' },
        rating: 5,
        content: 'Card exactly as described, well protected in a toploader, shipped the next day.',
      }),
    },
    responses: {
      201: { description: 'The review.', schema: review },
      403: { description: '`self-review`: the order has the caller on both sides.' },
      404: { description: 'No such order, or the caller is neither its buyer nor its seller.' },
      409: { description: '`order-not-received` or `review-exists`.' },
    },
    handler: async ({ principal, body }) => {
      const input: NewReview = { orderId: body.source.id, rating: body.rating, content: body.content };
      return { status: 201, body: await s.reviews.create(principal.userId, input) };
    },
  }),

  defineRoute<'listMyReviews', 'user'>({
    operationId: 'listMyReviews',
    method: 'get',
    path: '/user/reviews',
    tag: 'Reviews',
    summary: 'Reviews the caller wrote, received, or both; newest first',
    auth: 'user',
    request: {
      query: pageQuery.keys({
        role: Joi.string().valid('written', 'received', 'any').default('any').description('Which side of the reviews the caller is on.'),
      }),
    },
    responses: { 200: { description: 'One page of reviews.', schema: reviewsPage } },
    handler: async ({ principal, query }) => ({
      status: 200,
      body: await s.reviews.list(principal.userId, query.role, query.page, query.size),
    }),
  }),

  defineRoute<'reviseReview', 'user'>({
    operationId: 'reviseReview',
    method: 'put',
    path: '/user/reviews/{id}',
    tag: 'Reviews',
    summary: 'Revise your review (once)',
    description: "The reviewed user's aggregates follow the rating difference.",
    auth: 'user',
    request: {
      params: idParams,
      body: Joi.object({ rating, content }).example({ rating: 4, content: 'Arrived safely; a little slower than promised.' }),
    },
    responses: {
      200: { description: 'The revised review.', schema: review },
      404: { description: 'No such review, or the caller did not write it.' },
      409: { description: '`review-revision-limit`: the review was already revised.' },
    },
    handler: async ({ principal, params, body }) => ({ status: 200, body: await s.reviews.revise(principal.userId, params.id, body) }),
  }),

  defineRoute<'deleteReview', 'user'>({
    operationId: 'deleteReview',
    method: 'delete',
    path: '/user/reviews/{id}',
    tag: 'Reviews',
    summary: 'Delete your review',
    description: "The reviewed user's aggregates drop the review.",
    auth: 'user',
    request: { params: idParams },
    responses: {
      204: { description: 'Deleted.' },
      404: { description: 'No such review, or the caller did not write it.' },
    },
    handler: async ({ principal, params }) => {
      await s.reviews.remove(principal.userId, params.id);
      return { status: 204 };
    },
  }),
];
