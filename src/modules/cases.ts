import { createCaseActivities } from '../../activities/cases';
import { sellerCaseRoutes, userCaseRoutes } from '../http/routes/cases';
import { operatorOAuthAppRoutes } from '../http/routes/operator-oauth-apps';
import { operatorRoutes } from '../http/routes/operators';
import type { OAuthApps } from '../services/auth/oauth-apps';
import { Cases } from '../services/cases/cases';
import type { SellerMoney } from '../services/money/seller-money';
import { Operators } from '../services/operators/operators';
import { CaseUpdates } from '../temporal/case-updates';
import type { FeatureModule } from './feature-module';
import { periodsOf } from './timings';

/** What the case and operator routes use. */
export interface CasesServices {
  cases: Cases;
  operators: Operators;
  sellerMoney: SellerMoney;
  oauthApps: OAuthApps;
}

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
      const caseUpdates = new CaseUpdates(temporal, config.temporal.taskQueue);
      return {
        cases: new Cases(db, shared.uploads, caseUpdates, periodsOf(config)),
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
    activities: ({ config, db }) => ({ ...createCaseActivities({ db, reviewWindowSeconds: config.reviews.windowSeconds }) }),
  },
};
