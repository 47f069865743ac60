import type { ImportActivities, ImportSummary } from '../activities/imports';
import type { WorkflowInputs } from './contracts/inputs';
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
export async function listingImportWorkflow(input: WorkflowInputs['listingImportWorkflow']): Promise<ImportSummary> {
  const plan = await startImport(input.importId);
  if (plan.status === 'RUNNING') {
    for (let offset = plan.processedRows; offset < plan.totalRows; offset += plan.batchSize) {
      await importBatch(input.importId, offset, plan.batchSize);
    }
  }
  return finishImport(input.importId);
}
