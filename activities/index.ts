import { createEmailActivities, type EmailActivityDeps } from './email';
import { createImportActivities, type ImportActivityDeps } from './imports';
import { createWebhookActivities, type WebhookActivityDeps } from './webhooks';

export type ActivityDeps = EmailActivityDeps & WebhookActivityDeps & ImportActivityDeps;

/** All activities, built from their dependencies (no globals), for the worker and for tests. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createEmailActivities(deps),
    ...createWebhookActivities(deps),
    ...createImportActivities(deps),
  };
}
