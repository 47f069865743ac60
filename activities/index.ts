import { createEmailActivities, type EmailActivityDeps } from './email';
import { createImportActivities, type ImportActivityDeps } from './imports';

export type ActivityDeps = EmailActivityDeps & ImportActivityDeps;

/** All activities, built from their dependencies (no globals), for the worker and for tests. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createEmailActivities(deps),
    ...createImportActivities(deps),
  };
}
