import type { DataSource } from 'typeorm';
import { recordCaseChange, type CaseChange, type RecordedChange } from '../src/services/cases/case-changes';

export type { CaseChange, RecordedChange };

export interface CaseActivityDeps {
  db: DataSource;
}

export interface CaseActivities {
  /** Writes one change of `case:{caseId}` to Postgres (idempotent); null when the case is gone. */
  recordCaseChange(change: CaseChange): Promise<RecordedChange | null>;
}

export function createCaseActivities({ db }: CaseActivityDeps): CaseActivities {
  return {
    // TODO(reviews issue): when the result has `completedPurchaseId`, open the purchase's review
    // window here, as the order activities do for receipts (`activityReviewWindows(deps).open`
    // on branch issue-7-reviews; not on this branch's base yet).
    recordCaseChange: (change) => recordCaseChange(db, change),
  };
}
