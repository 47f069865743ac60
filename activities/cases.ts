import { recordCaseChange, type CaseChange, type RecordedChange } from '../src/services/cases/case-changes';
import { activityReviewWindows, type ReviewActivityDeps } from './reviews';

export type { CaseChange, RecordedChange };

export type CaseActivityDeps = ReviewActivityDeps;

export interface CaseActivities {
  /** Writes one change of `case:{caseId}` to Postgres (idempotent); null when the case is gone. */
  recordCaseChange(change: CaseChange): Promise<RecordedChange | null>;
}

export function createCaseActivities(deps: CaseActivityDeps): CaseActivities {
  const reviewWindows = activityReviewWindows(deps);
  return {
    recordCaseChange: async (change) => {
      const recorded = await recordCaseChange(deps.db, change);
      // A closing case can be what completes the purchase; its review window opens then, as it
      // does for receipts (a failed start is left to the API's reconciliation).
      if (recorded?.completedPurchaseId) await reviewWindows.open(recorded.completedPurchaseId);
      return recorded;
    },
  };
}
