import { createHash } from 'node:crypto';
import Joi from '../../joi';
import type { Context } from 'koa';
import { CASE_REASONS } from '../../services/orders/order-engine';
import { requestHash } from '../../services/idempotency/idempotency-keys';
import { CASE_STATUSES } from '../../domain/cases/machine';
import { defineRoute } from '../route';
import { caseAttachment, caseView, idParams, offsetPage, outcomeProposalFields, pagedQuery } from '../schemas';
import type { Cases } from '../../services/cases/cases';

/**
 * The Temporal Update id of a case action, so Temporal itself recognises a retried action: the
 * same request sent again. Derived from the request's `Idempotency-Key` when it has one, else
 * from its request id (`X-Request-Id`, which a client may send again with its retry), and always
 * from the action itself (method, path and body as sent), scoped to the caller and the case. So
 * a *different* action sent with a reused request id or key is a different Update and is
 * applied (or refused) on its own, never answered with the first one's outcome.
 */
function caseUpdateId(ctx: Context, userId: string, caseId: string): string {
  const key = ctx.state.idempotencyKey as string | undefined;
  const source = key ? `key:${key}` : `request:${String(ctx.state.requestId)}`;
  const action = requestHash([ctx.method, ctx.path, ctx.request.body ?? null]);
  return createHash('sha256').update(`${userId}\n${caseId}\n${source}\n${action}`).digest('hex');
}

/** The action body: the buyer has four actions, the seller also `resolve` (a return arrived). */
const caseActionBody = (actions: string[]) =>
  Joi.object({
    action: Joi.string()
      .valid(...actions)
      .required(),
    ...Object.fromEntries(
      Object.entries(outcomeProposalFields).map(([k, schema]) => [
        k,
        Joi.when('action', { is: 'propose', then: schema, otherwise: Joi.forbidden() }),
      ]),
    ),
    outcomeId: Joi.when('action', { is: Joi.valid('accept', 'reject'), then: Joi.string().uuid().required(), otherwise: Joi.forbidden() }),
  });

const OUTCOME_ID = '0191f3c2-e0a4-7187-b9da-1e2f30415263';
const CASE_ACTION_EXAMPLES = [
  { action: 'propose', type: 'REFUND', amount: 12000, comment: 'Partial refund for the crease; the card stays with the buyer.' },
  { action: 'accept', outcomeId: OUTCOME_ID },
  { action: 'reject', outcomeId: OUTCOME_ID },
  { action: 'escalate' },
  { action: 'resolve' },
];

/** The action body with one example per action the party has (Swagger UI offers them in a picker). */
const caseAction = (actions: string[]) =>
  CASE_ACTION_EXAMPLES.filter((e) => actions.includes(e.action)).reduce((schema, e) => schema.example(e), caseActionBody(actions));

const attachmentUpload = Joi.object({
  id: Joi.string().required(),
  imageId: Joi.string().required(),
  uploadUrl: Joi.string().uri().required(),
  maxBytes: Joi.number().integer().required(),
});
const finalizeBody = Joi.object({
  id: Joi.string().max(200).required().description('The `imageId` from step 1: `case/{caseId}/attachments/{attachmentId}`.'),
}).example({ id: 'case/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b/attachments/0191f3c2-f1b5-7298-8aeb-2f3041526374' });

const ACTION_RESPONSES = {
  400: { description: 'Malformed action.' },
  404: { description: "Case (or the named outcome) missing or not the caller's." },
  409: {
    description:
      '`outcome-accepted` (an accepted outcome cannot change), `case-closed`, `own-outcome`, `outcome-not-pending`, `case-not-escalatable`, `case-not-settled`.',
  },
  503: { description: 'The case workflow did not answer in time; the action may still apply (read the case before retrying).' },
};

/**
 * The attachment routes are the same for both parties but for path, tag and auth: each party's
 * route list declares its operations and handlers and takes the rest from here.
 */
const createAttachment = <A extends 'user' | 'seller'>(auth: A, base: string, tag: string) => ({
  method: 'post' as const,
  path: `${base}/{id}/attachments`,
  tag,
  summary: "Step 1 of a case attachment: an upload URL and the attachment's image id",
  description: '`PUT` the image bytes to `uploadUrl`, then `PATCH` this path with `{id: imageId}`.',
  auth,
  request: { params: idParams },
  responses: {
    201: { description: 'The upload.', schema: attachmentUpload },
    404: { description: "Case missing or not the caller's." },
  },
});
const finalizeAttachment = <A extends 'user' | 'seller'>(auth: A, base: string, tag: string) => ({
  method: 'patch' as const,
  path: `${base}/{id}/attachments`,
  tag,
  summary: 'Step 2 of a case attachment: attach the finished upload',
  auth,
  request: { params: idParams, body: finalizeBody },
  responses: {
    200: { description: 'The case attachment.', schema: caseAttachment },
    400: {
      description: "`invalid-image-id` (not this case's URN shape) or `upload-not-ready` (unknown, not the caller's, or a draft).",
    },
    404: { description: "Case missing or not the caller's." },
  },
});

/** The services these routes use (their feature module's, src/modules). */
export interface CaseRouteServices {
  cases: Cases;
}

export const userCaseRoutes = (s: CaseRouteServices) => [
  defineRoute<'listUserCases', 'user'>({
    operationId: 'listUserCases',
    method: 'get',
    path: '/user/cases',
    tag: 'Cases',
    summary: "Cases on the caller's purchases, paged, with outcomes and attachments",
    description: "A seller's `deliveryAddress` on a seller outcome is null until the buyer accepts that outcome.",
    auth: 'user',
    request: { query: pagedQuery },
    responses: { 200: { description: 'Cases.', schema: Joi.array().items(caseView) } },
    handler: async ({ principal, query }) => ({ status: 200, body: await s.cases.listForBuyer(principal.userId, query) }),
  }),
  defineRoute<'getUserCase', 'user'>({
    operationId: 'getUserCase',
    method: 'get',
    path: '/user/cases/{id}',
    tag: 'Cases',
    summary: "One case on the caller's purchases",
    auth: 'user',
    request: { params: idParams },
    responses: { 200: { description: 'The case.', schema: caseView }, 404: { description: "Case missing or not the caller's." } },
    handler: async ({ principal, params }) => ({ status: 200, body: await s.cases.get('BUYER', principal.userId, params.id) }),
  }),
  defineRoute<'updateUserCase', 'user'>({
    operationId: 'updateUserCase',
    method: 'put',
    path: '/user/cases/{id}',
    tag: 'Cases',
    summary: 'Act on a case as the buyer: `propose`, `accept`, `reject` or `escalate`',
    description: 'See docs/cases.md for the state machine. Answers the refreshed case.',
    auth: 'user',
    request: { params: idParams, body: caseAction(['propose', 'accept', 'reject', 'escalate']) },
    responses: { 200: { description: 'The case after the action.', schema: caseView }, ...ACTION_RESPONSES },
    handler: async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await s.cases.act('BUYER', principal.userId, params.id, body, caseUpdateId(ctx, principal.userId, params.id)),
    }),
  }),
  defineRoute<'createUserCaseAttachment', 'user'>({
    operationId: 'createUserCaseAttachment',
    ...createAttachment('user', '/user/cases', 'Cases'),
    handler: async ({ principal, params }) => ({ status: 201, body: await s.cases.createAttachment('BUYER', principal.userId, params.id) }),
  }),
  defineRoute<'finalizeUserCaseAttachment', 'user'>({
    operationId: 'finalizeUserCaseAttachment',
    ...finalizeAttachment('user', '/user/cases', 'Cases'),
    handler: async ({ principal, params, body }) => ({
      status: 200,
      body: await s.cases.finalizeAttachment('BUYER', principal.userId, params.id, body.id),
    }),
  }),
];

/** Case list filters (seller inbox, operator search): each repeatable, any of the values. */
export const caseStatusFilter = Joi.array()
  .items(Joi.string().valid(...CASE_STATUSES))
  .single()
  .description('Repeat for several: any of them.');
export const caseReasonFilter = Joi.array()
  .items(Joi.string().valid(...CASE_REASONS))
  .single()
  .description('Repeat for several: any of them.');

const sellerCaseQuery = Joi.object({
  page: Joi.number().integer().min(1).default(1),
  size: Joi.number().integer().min(1).max(50).default(20),
  status: caseStatusFilter,
  reason: caseReasonFilter,
});

export const sellerCaseRoutes = (s: CaseRouteServices) => [
  defineRoute<'listSellerCases', 'seller'>({
    operationId: 'listSellerCases',
    method: 'get',
    path: '/seller/cases',
    tag: 'Seller cases',
    summary: "Cases on the caller's orders, paged, filtered by status and reason, sorted by deadline",
    description:
      'Cases whose 7-day escalation clock runs (OPEN, REMEDIATION) come first, soonest escalation first; then the others, most recently changed first.',
    auth: 'seller',
    request: { query: sellerCaseQuery },
    responses: { 200: { description: 'Cases.', schema: offsetPage(caseView).meta({ component: 'CasePage' }) } },
    handler: async ({ principal, query }) => ({ status: 200, body: await s.cases.listForSeller(principal.userId, query) }),
  }),
  defineRoute<'getSellerCase', 'seller'>({
    operationId: 'getSellerCase',
    method: 'get',
    path: '/seller/cases/{id}',
    tag: 'Seller cases',
    summary: "One case on the caller's orders",
    auth: 'seller',
    request: { params: idParams },
    responses: { 200: { description: 'The case.', schema: caseView }, 404: { description: "Case missing or not the caller's." } },
    handler: async ({ principal, params }) => ({ status: 200, body: await s.cases.get('SELLER', principal.userId, params.id) }),
  }),
  defineRoute<'updateSellerCase', 'seller'>({
    operationId: 'updateSellerCase',
    method: 'put',
    path: '/seller/cases/{id}',
    tag: 'Seller cases',
    summary: 'Act on a case as the seller: `escalate`, `propose`, `accept`, `reject` or `resolve`',
    description:
      '`resolve` confirms that the returned items of an accepted RETURN arrived: SETTLED → CLOSED; their units go back on sale and their value is refunded to the buyer. Accepting a REFUND refunds its amount; accepting a REPLACEMENT takes the units off sale and adds a REPLACEMENT adjustment to the order. Answers the refreshed case (with `orderId`).',
    auth: 'seller',
    request: { params: idParams, body: caseAction(['escalate', 'propose', 'accept', 'reject', 'resolve']) },
    responses: { 200: { description: 'The case after the action.', schema: caseView }, ...ACTION_RESPONSES },
    handler: async ({ principal, params, body, ctx }) => ({
      status: 200,
      body: await s.cases.act('SELLER', principal.userId, params.id, body, caseUpdateId(ctx, principal.userId, params.id)),
    }),
  }),
  defineRoute<'createSellerCaseAttachment', 'seller'>({
    operationId: 'createSellerCaseAttachment',
    ...createAttachment('seller', '/seller/cases', 'Seller cases'),
    handler: async ({ principal, params }) => ({
      status: 201,
      body: await s.cases.createAttachment('SELLER', principal.userId, params.id),
    }),
  }),
  defineRoute<'finalizeSellerCaseAttachment', 'seller'>({
    operationId: 'finalizeSellerCaseAttachment',
    ...finalizeAttachment('seller', '/seller/cases', 'Seller cases'),
    handler: async ({ principal, params, body }) => ({
      status: 200,
      body: await s.cases.finalizeAttachment('SELLER', principal.userId, params.id, body.id),
    }),
  }),
];
