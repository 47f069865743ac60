import { createEmailActivities, type EmailActivityDeps } from './email';
import { createWebhookActivities, type WebhookActivityDeps } from './webhooks';

export type ActivityDeps = EmailActivityDeps & WebhookActivityDeps;

/** All activities, built from their dependencies (no globals), for the worker and for tests. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createEmailActivities(deps),
    ...createWebhookActivities(deps),
  };
}
