import { createEmailActivities, type EmailActivityDeps } from './email';

export type ActivityDeps = EmailActivityDeps;

/** All activities, built from their dependencies (no globals), for the worker and for tests. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createEmailActivities(deps),
  };
}
