import { createCaseActivities, type CaseActivityDeps } from './cases';
import { createCheckoutActivities, type CheckoutActivityDeps } from './checkout';
import { createEmailActivities, type EmailActivityDeps } from './email';
import { createImportActivities, type ImportActivityDeps } from './imports';
import { createOrderActivities, type OrderActivityDeps } from './orders';

export type ActivityDeps = EmailActivityDeps & ImportActivityDeps & CheckoutActivityDeps & OrderActivityDeps & CaseActivityDeps;

/** All activities, built from their dependencies (no globals), for the worker and for tests. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createEmailActivities(deps),
    ...createImportActivities(deps),
    ...createCheckoutActivities(deps),
    ...createOrderActivities(deps),
    ...createCaseActivities(deps),
  };
}
