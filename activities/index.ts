import { createCaseActivities, type CaseActivityDeps } from './cases';
import { createCheckoutActivities, type CheckoutActivityDeps } from './checkout';
import { createEmailActivities, type EmailActivityDeps } from './email';
import { createImportActivities, type ImportActivityDeps } from './imports';
import { createOrderActivities, type OrderActivityDeps } from './orders';
import { createRetentionActivities, type RetentionActivityDeps } from './retention';
import { createReviewActivities, type ReviewActivityDeps } from './reviews';
import { createWebhookActivities, type WebhookActivityDeps } from './webhooks';

export type ActivityDeps = EmailActivityDeps &
  WebhookActivityDeps &
  ImportActivityDeps &
  CheckoutActivityDeps &
  OrderActivityDeps &
  ReviewActivityDeps &
  RetentionActivityDeps &
  CaseActivityDeps;

/** All activities, built from their dependencies (no globals), for the worker and for tests. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createEmailActivities(deps),
    ...createWebhookActivities(deps),
    ...createImportActivities(deps),
    ...createCheckoutActivities(deps),
    ...createOrderActivities(deps),
    ...createReviewActivities(deps),
    ...createRetentionActivities(deps),
    ...createCaseActivities(deps),
  };
}
