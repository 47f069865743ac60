import { createCaseActivities } from '../../activities/cases';
import { sellerCaseRoutes, userCaseRoutes } from '../http/routes/cases';
import { operatorOAuthAppRoutes } from '../http/routes/operator-oauth-apps';
import { operatorRoutes } from '../http/routes/operators';
import type { OAuthApps } from '../services/auth/oauth-apps';
import { orderCancelledSignal } from '../../workflows/contracts/case';
import { CASE_SEARCH_ATTRIBUTES } from '../domain/cases/search-attributes';
import type { CaseChangeStarts } from '../services/cases/case-changes';
import type { OpenedCase } from '../services/cases/case-opening';
import { Cases } from '../services/cases/cases';
import type { SellerMoney } from '../services/money/seller-money';
import { Operators } from '../services/operators/operators';
import { CaseUpdates } from '../temporal/case-updates';
import type { FeatureModule } from './feature-module';
import { fundsReleaseCaseClosedStart } from './money';
import { reviewWindowStart } from './reviews';
import { periodsOf } from './timings';
import { start } from './workflow-start';
import { keyword, type WorkflowStartOptions } from '../services/workflow-starts/start';

/** What the case and operator routes use. */
export interface CasesServices {
  cases: Cases;
  operators: Operators;
  sellerMoney: SellerMoney;
  oauthApps: OAuthApps;
}

/** The ids of this feature's workflows: an operator finds one from the object's id. */
export const casesWorkflowIds = {
  case: (caseId: string) => `case:${caseId}`,
};

/** `case:{caseId}` as its opening starts it; with `signal`, a signal-with-start of the same. */
function caseStart(opened: OpenedCase, autoEscalateSeconds: number, signal?: WorkflowStartOptions['signal'], requestKey?: string) {
  return start(
    'caseWorkflow',
    casesWorkflowIds.case(opened.caseId),
    { caseId: opened.caseId, outcomes: opened.outcomes, autoEscalateAfterMs: autoEscalateSeconds * 1000, indexed: true },
    {
      ...(signal ? { signal } : {}),
      summary: `Case ${opened.caseId} (${opened.reason}) on order ${opened.orderId}, seller ${opened.sellerId}`,
      searchAttributes: [
        keyword(CASE_SEARCH_ATTRIBUTES.status, 'OPEN'),
        keyword(CASE_SEARCH_ATTRIBUTES.reason, opened.reason),
        keyword(CASE_SEARCH_ATTRIBUTES.sellerId, opened.sellerId),
        keyword(CASE_SEARCH_ATTRIBUTES.orderId, opened.orderId),
      ],
    },
    requestKey,
  );
}

/** The case workflow's starts: requested by order actions, and by a party's first action. */
export const caseStarts = {
  /** `case:{caseId}`, indexed by its search attributes from the start (docs/cases.md). */
  case: (opened: OpenedCase, autoEscalateSeconds: number) => caseStart(opened, autoEscalateSeconds),

  /**
   * The case's order was cancelled: `orderCancelled` signalled to `case:{caseId}` (a
   * signal-with-start, ordered after the case's own start in the outbox), which closes the case.
   * A case workflow that has ended already is not started again (REJECT_DUPLICATE): a no-op.
   */
  caseOrderCancelled: (opened: OpenedCase, autoEscalateSeconds: number) =>
    caseStart(opened, autoEscalateSeconds, { name: orderCancelledSignal.name, args: [] }, `order-cancelled:${opened.orderId}`),
};

/** What the case workflow's change recording requests (`recordCaseChange`): the same in every caller. */
export const caseChangeStarts: CaseChangeStarts = {
  fundsReleaseCaseClosed: fundsReleaseCaseClosedStart,
  reviewWindow: reviewWindowStart,
};

/**
 * Disputes and the people who decide them (docs/cases.md, docs/sellers-operators.md): buyers' and
 * sellers' cases, each a `case:{caseId}` workflow moved by Updates (src/temporal/case-updates.ts),
 * and the operators' routes: escalated cases, seller standing, the audit log, OAuth applications.
 * Operator roles are shared: the router checks them on every operator route.
 */
export const casesModule: FeatureModule<CasesServices> = {
  name: 'cases',
  tags: {
    'Seller cases': 'Cases (disputes) on orders the seller sold.',
    Cases: 'Cases (disputes) on purchases, with outcome proposals and escalation.',
    Operators: 'Marketplace operators: escalated cases, seller standing, the audit log. See docs/sellers-operators.md.',
  },
  api: {
    services: ({ config, db, temporal, shared }) => {
      const caseUpdates = new CaseUpdates(temporal, config.temporal.taskQueue, casesWorkflowIds.case);
      return {
        cases: new Cases(db, shared.uploads, caseUpdates, caseStarts.case, periodsOf(config)),
        operators: new Operators(db, caseUpdates, periodsOf(config)),
        sellerMoney: shared.sellerMoney,
        oauthApps: shared.oauthApps,
      };
    },
    routes: (services) => [
      ...userCaseRoutes(services),
      ...sellerCaseRoutes(services),
      ...operatorRoutes(services),
      ...operatorOAuthAppRoutes(services),
    ],
  },
  worker: {
    activities: ({ config, db }) => ({
      ...createCaseActivities({ db, reviewWindowSeconds: config.reviews.windowSeconds, starts: caseChangeStarts }),
    }),
  },
};
