import type { UploadActivities } from '../activities/uploads';
import { boundedActivities } from './bounded-activities';

const { collectUploads } = boundedActivities<UploadActivities>({
  // Batches of 500 rows and their files; a backlog after a long outage takes minutes.
  startToCloseTimeout: '30 minutes',
  // The Schedule runs again within the hour and skips a run while one is going: few retries.
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 3 },
});

/** Started by the upload collector Schedule: uploads unattached for `olderThanMs` are deleted. */
export interface UploadCollectorInput {
  olderThanMs: number;
}

/**
 * One collection of unattached uploads (docs/seller-listings.md, "Quota and collection"),
 * started by the Temporal Schedule `upload-collector` that the worker keeps in line with its
 * configuration. Returns how many uploads it deleted.
 */
export async function uploadCollectorWorkflow(input: UploadCollectorInput): Promise<number> {
  return collectUploads(input.olderThanMs);
}
