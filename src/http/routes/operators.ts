import Joi from '../../joi';
import { AUDIT_SUBJECTS } from '../../services/operators/audit';
import { defineRoute } from '../route';
import { caseView, idParams, offsetPage, timestamp } from '../schemas';
import type { SellerMoney } from '../../services/money/seller-money';
import type { Operators } from '../../services/operators/operators';
import { caseReasonFilter, caseStatusFilter } from './cases';

const TAG = 'Operators';

/** Paging of the operator list routes (their order is fixed by what each lists). */
export const operatorPaging = { page: Joi.number().integer().min(1).default(1), size: Joi.number().integer().min(1).max(50).default(20) };
export const operatorReason = Joi.string()
  .trim()
  .min(1)
  .max(2000)
  .required()
  .description('Why: kept in the audit log (and, for a seller, on the account).');

const operatorCase = caseView
  .keys({
    sellerId: Joi.string().required(),
    buyerId: Joi.string().required(),
    escalatedAt: timestamp.allow(null).required(),
  })
  .meta({ component: 'OperatorCase' });
const standing = Joi.object({
  userId: Joi.string().required(),
  status: Joi.string().valid('ACTIVE', 'SUSPENDED').required(),
  reason: Joi.string().allow(null).required(),
  changedAt: timestamp.allow(null).required(),
  changedBy: Joi.string().allow(null).required(),
});
/**
 * Suspend and reinstate are the same request and answer; they differ in words and in the service
 * call, so each route declares its operation and handler and takes the rest from here.
 */
function standingChange(change: {
  action: 'suspend' | 'reinstate';
  summary: string;
  conflict: string;
  /** A realistic `reason`, the body's example. */
  exampleReason: string;
}) {
  return {
    method: 'post' as const,
    path: `/operator/sellers/{id}/${change.action}`,
    tag: TAG,
    summary: change.summary,
    auth: 'operator' as const,
    request: { params: idParams, body: Joi.object({ reason: operatorReason }).example({ reason: change.exampleReason }) },
    responses: {
      200: { description: 'The new standing.', schema: standing },
      404: { description: 'No such seller.' },
      409: { description: change.conflict },
    },
  };
}
const auditEntry = Joi.object({
  id: Joi.string().required(),
  operatorId: Joi.string().required(),
  action: Joi.string()
    .required()
    .description(
      '`case.decide`, `seller.suspend`, `seller.reinstate`, `oauth-app.register`, `oauth-app.disable`, `oauth-app.enable` or `oauth-app.rotate-secret`.',
    ),
  subjectType: Joi.string()
    .valid(...AUDIT_SUBJECTS)
    .required(),
  subjectId: Joi.string().required(),
  reason: Joi.string().allow('').required(),
  detail: Joi.object().unknown(true).required(),
  createdAt: timestamp.required(),
});

const stuckMoney = Joi.object({
  kind: Joi.string().valid('payout', 'release').required(),
  id: Joi.string().required().description('The payout id, or the order id of a release.'),
  sellerId: Joi.string().required(),
  status: Joi.string().required().description('The payout status (`CREATED`, `IN_TRANSIT`), or `PENDING` for a release.'),
  amount: Joi.number().integer().required().description('Pence.'),
  dueAt: timestamp.required(),
}).meta({ component: 'StuckMoney' });
const reconciliation = Joi.object({
  id: Joi.string().required(),
  kind: Joi.string().valid('payout', 'release').required(),
  subjectId: Joi.string().required(),
  sellerId: Joi.string().required(),
  before: Joi.string().required(),
  after: Joi.string()
    .allow(null)
    .required()
    .description('What it reached: `PAID`, `FAILED`, `released`, `held-by-case`, `nothing-pending`; null when it failed again.'),
  error: Joi.string().allow(null).required(),
  createdAt: timestamp.required(),
}).meta({ component: 'MoneyReconciliation' });

/** The services these routes use (their feature module's, src/modules). */
export interface OperatorRouteServices {
  sellerMoney: SellerMoney;
  operators: Operators;
}

/** Routes of marketplace operators: their own tag and security requirement (docs/sellers-operators.md). */
export const operatorRoutes = (s: OperatorRouteServices) => [
  defineRoute<'operatorListCases', 'operator'>({
    operationId: 'operatorListCases',
    method: 'get',
    path: '/operator/cases',
    tag: TAG,
    summary: 'Search cases of every seller by status, reason, seller and age; oldest first',
    auth: 'operator',
    request: {
      query: Joi.object({
        ...operatorPaging,
        status: caseStatusFilter,
        reason: caseReasonFilter,
        sellerId: Joi.string().uuid(),
        openedBefore: timestamp.description('Opened at or before (ISO 8601): cases at least this old.'),
        openedAfter: timestamp.description('Opened at or after (ISO 8601).'),
      }),
    },
    responses: {
      200: {
        description: 'Cases, unredacted, with both parties.',
        schema: offsetPage(operatorCase).meta({ component: 'OperatorCasePage' }),
      },
    },
    handler: async ({ query }) => ({ status: 200, body: await s.operators.listCases(query) }),
  }),

  defineRoute<'operatorGetCase', 'operator'>({
    operationId: 'operatorGetCase',
    method: 'get',
    path: '/operator/cases/{id}',
    tag: TAG,
    summary: 'One case, unredacted, with both parties',
    auth: 'operator',
    request: { params: idParams },
    responses: { 200: { description: 'The case.', schema: operatorCase }, 404: { description: 'No such case.' } },
    handler: async ({ params }) => ({ status: 200, body: await s.operators.getCase(params.id) }),
  }),

  defineRoute<'operatorDecideCase', 'operator'>({
    operationId: 'operatorDecideCase',
    method: 'post',
    path: '/operator/cases/{id}/decision',
    tag: TAG,
    summary: 'Decide an ESCALATED case: `close` it, or `remediate` (back to the parties for a new 7-day period)',
    description:
      'Sent to the case workflow as its `operatorDecision` Update, the same one the Temporal CLI sends. Recorded in the audit log.',
    auth: 'operator',
    request: {
      params: idParams,
      body: Joi.object({ decision: Joi.string().valid('close', 'remediate').required(), reason: operatorReason })
        .example({ decision: 'remediate', reason: 'Photos show a crease not mentioned in the listing; refund the buyer in full.' })
        .example({ decision: 'close', reason: 'Tracking shows delivery to the buyer; the card matches the listing photos.' }),
    },
    responses: {
      200: { description: 'The case after the decision.', schema: operatorCase },
      404: { description: 'No such case.' },
      409: { description: '`case-not-escalated` (only escalated cases are decided) or `case-closed`.' },
      503: { description: 'The case workflow did not answer in time; read the case before retrying.' },
    },
    handler: async ({ principal, params, body }) => ({
      status: 200,
      body: await s.operators.decideCase(principal.userId, params.id, body.decision, body.reason),
    }),
  }),

  defineRoute<'operatorGetSeller', 'operator'>({
    operationId: 'operatorGetSeller',
    method: 'get',
    path: '/operator/sellers/{id}',
    tag: TAG,
    summary: "A seller's standing: status, and who changed it last, when and why",
    auth: 'operator',
    request: { params: idParams },
    responses: { 200: { description: 'The standing.', schema: standing }, 404: { description: 'No such seller.' } },
    handler: async ({ params }) => ({ status: 200, body: await s.operators.sellerStanding(params.id) }),
  }),

  defineRoute<'operatorSuspendSeller', 'operator'>({
    operationId: 'operatorSuspendSeller',
    ...standingChange({
      action: 'suspend',
      summary: 'Suspend a seller: listings hidden from buyers at once, checkouts with them refused',
      conflict: '`seller-suspended`: already suspended.',
      exampleReason: 'Five buyer cases for items not received in 30 days; suspended pending review of shipping proofs.',
    }),
    handler: async ({ principal, params, body }) => ({
      status: 200,
      body: await s.operators.suspendSeller(principal.userId, params.id, body.reason),
    }),
  }),

  defineRoute<'operatorReinstateSeller', 'operator'>({
    operationId: 'operatorReinstateSeller',
    ...standingChange({
      action: 'reinstate',
      summary: 'Reinstate a suspended seller: their listings are live again',
      conflict: '`seller-active`: not suspended.',
      exampleReason: 'Tracked shipping proofs provided for all open cases; reinstated.',
    }),
    handler: async ({ principal, params, body }) => ({
      status: 200,
      body: await s.operators.reinstateSeller(principal.userId, params.id, body.reason),
    }),
  }),

  defineRoute<'operatorStuckMoney', 'operator'>({
    operationId: 'operatorStuckMoney',
    method: 'get',
    path: '/operator/money/stuck',
    tag: TAG,
    summary: 'Money past its due time (payouts not answered, releases past their date) and what the reconciler did lately',
    description:
      'The `money-reconcile` Schedule finishes stuck money every 15 minutes (docs/money.md "Reconciler"); `POST /operator/money/reconcile` does it now.',
    auth: 'operator',
    responses: {
      200: {
        description: 'What is stuck now, oldest due first, and the 50 latest reconciliations, newest first.',
        schema: Joi.object({ stuck: Joi.array().items(stuckMoney).required(), recent: Joi.array().items(reconciliation).required() }),
      },
    },
    handler: async () => {
      const [stuck, recent] = await Promise.all([s.sellerMoney.stuckMoney(new Date()), s.sellerMoney.reconciliations(50)]);
      return { status: 200, body: { stuck, recent } };
    },
  }),

  defineRoute<'operatorReconcileMoney', 'operator'>({
    operationId: 'operatorReconcileMoney',
    method: 'post',
    path: '/operator/money/reconcile',
    tag: TAG,
    summary: 'Finish stuck money now, through the same services as the workflows (idempotent: nothing moves twice)',
    auth: 'operator',
    responses: {
      200: {
        description: 'What was done, one entry per stuck payout or release (empty when nothing was stuck).',
        schema: Joi.object({ reconciled: Joi.array().items(reconciliation).required() }),
      },
    },
    handler: async () => ({ status: 200, body: { reconciled: await s.sellerMoney.reconcile(new Date()) } }),
  }),

  defineRoute<'operatorAuditLog', 'operator'>({
    operationId: 'operatorAuditLog',
    method: 'get',
    path: '/operator/audit-log',
    tag: TAG,
    summary: 'Every operator action, newest first: who, what, on which subject, why',
    description: 'Append-only: the database refuses updates and deletes of its rows.',
    auth: 'operator',
    request: {
      query: Joi.object({
        ...operatorPaging,
        operatorId: Joi.string().uuid(),
        subjectType: Joi.string().valid(...AUDIT_SUBJECTS),
        subjectId: Joi.string().max(100),
      }),
    },
    responses: { 200: { description: 'Audit entries.', schema: offsetPage(auditEntry).meta({ component: 'AuditEntryPage' }) } },
    handler: async ({ query }) => ({ status: 200, body: await s.operators.auditLog(query) }),
  }),
];
