import type { UploadCollector } from '../src/services/retention/upload-collector';

export interface UploadActivityDeps {
  uploadCollector: UploadCollector;
}

export interface UploadActivities {
  /** Deletes unattached uploads older than `olderThanMs` and their bytes; returns how many. */
  collectUploads(olderThanMs: number): Promise<number>;
}

export function createUploadActivities({ uploadCollector }: UploadActivityDeps): UploadActivities {
  return {
    collectUploads: (olderThanMs) => uploadCollector.collect(olderThanMs),
  };
}
