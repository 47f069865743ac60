import type { DataSource } from 'typeorm';
import { recordCaseChange, type CaseChange, type CaseChangeStarts, type RecordedChange } from '../src/services/cases/case-changes';

export type { CaseChange, RecordedChange };

export interface CaseActivityDeps {
  db: DataSource;
  /** REVIEW_WINDOW_SECONDS: the window a closing case opens when it completes the purchase. */
  reviewWindowSeconds: number;
  starts: CaseChangeStarts;
}

export interface CaseActivities {
  /** Writes one change of `case:{caseId}` to Postgres (idempotent); null when the case is gone. */
  recordCaseChange(change: CaseChange): Promise<RecordedChange | null>;
}

export function createCaseActivities(deps: CaseActivityDeps): CaseActivities {
  return {
    recordCaseChange: (change) => recordCaseChange(deps.db, change, { ...deps.starts, reviewWindowSeconds: deps.reviewWindowSeconds }),
  };
}
