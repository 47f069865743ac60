import { patched, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { IMPORT_SEARCH_ATTRIBUTES } from '../src/domain/imports/search-attributes';
import type { ImportActivities, ImportSummary } from '../activities/imports';
import { BOUNDED_RETRY, boundedActivities } from './bounded-activities';

const { startImport, importBatch, finishImport } = boundedActivities<ImportActivities>({
  // A batch is one transaction of a few hundred rows; minutes would mean something is wrong.
  startToCloseTimeout: '2 minutes',
  retry: BOUNDED_RETRY,
});

/**
 * A seller's CSV listing import (`import:{importId}`): rows are processed in batches, each
 * batch its own retried activity and transaction. Every step is idempotent, so a re-run of a
 * finished import changes nothing and a resumed one continues where it stopped.
 */
export async function listingImportWorkflow(input: { importId: string }): Promise<ImportSummary> {
  const plan = await startImport(input.importId);
  if (plan.status === 'RUNNING') {
    for (let offset = plan.processedRows; offset < plan.totalRows; offset += plan.batchSize) {
      await importBatch(input.importId, offset, plan.batchSize);
    }
  }
  const summary = await finishImport(input.importId);
  // `ImportStatus` for operators, on imports started with the import search attributes; behind a
  // patch so imports recorded before it replay without the upsert they never made.
  if (
    workflowInfo().typedSearchAttributes.get(IMPORT_SEARCH_ATTRIBUTES.sellerId) !== undefined &&
    patched('import-status-search-attribute')
  ) {
    upsertSearchAttributes([{ key: IMPORT_SEARCH_ATTRIBUTES.status, value: summary.status }]);
  }
  return summary;
}
