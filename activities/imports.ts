import type { ImportPlan, ImportSummary, ListingImportRuns } from '../src/services/imports/import-runs';

export type { ImportPlan, ImportSummary };

export interface ImportActivityDeps {
  importRuns: ListingImportRuns;
}

export interface ImportActivities {
  startImport(importId: string): Promise<ImportPlan>;
  importBatch(importId: string, offset: number, limit: number): Promise<void>;
  finishImport(importId: string): Promise<ImportSummary>;
}

export function createImportActivities({ importRuns }: ImportActivityDeps): ImportActivities {
  return {
    startImport: (importId) => importRuns.start(importId),
    importBatch: (importId, offset, limit) => importRuns.importBatch(importId, offset, limit),
    finishImport: (importId) => importRuns.finish(importId),
  };
}
