import { createCaseActivities, type CaseActivityDeps } from './cases';
import { createCheckoutActivities, type CheckoutActivityDeps } from './checkout';
import { createConversationActivities, type ConversationActivityDeps } from './conversations';
import { createEmailActivities, type EmailActivityDeps } from './email';
import { createImportActivities, type ImportActivityDeps } from './imports';
import { createMoneyActivities, type MoneyActivityDeps } from './money';
import { createOrderActivities, type OrderActivityDeps } from './orders';
import { createRetentionActivities, type RetentionActivityDeps } from './retention';
import { createReviewActivities, type ReviewActivityDeps } from './reviews';
import { createTrackingActivities, type TrackingActivityDeps } from './tracking';
import { createUploadActivities, type UploadActivityDeps } from './uploads';
import { createWebhookActivities, type WebhookActivityDeps } from './webhooks';
import { classifyFailures } from './failures';

export type ActivityDeps = EmailActivityDeps &
  WebhookActivityDeps &
  ImportActivityDeps &
  CheckoutActivityDeps &
  OrderActivityDeps &
  MoneyActivityDeps &
  ReviewActivityDeps &
  CaseActivityDeps &
  ConversationActivityDeps &
  RetentionActivityDeps &
  UploadActivityDeps &
  TrackingActivityDeps;

/**
 * All activities, built from their dependencies (no globals), for the worker and for tests;
 * failures that no retry can fix leave them non-retryable (activities/failures.ts).
 */
export function createActivities(deps: ActivityDeps) {
  return classifyFailures({
    ...createEmailActivities(deps),
    ...createWebhookActivities(deps),
    ...createImportActivities(deps),
    ...createCheckoutActivities(deps),
    ...createOrderActivities(deps),
    ...createMoneyActivities(deps),
    ...createReviewActivities(deps),
    ...createRetentionActivities(deps),
    ...createUploadActivities(deps),
    ...createCaseActivities(deps),
    ...createConversationActivities(deps),
    ...createTrackingActivities(deps),
  });
}
