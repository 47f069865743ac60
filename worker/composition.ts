import type { DataSource } from 'typeorm';
import { classifyFailures } from '../activities/failures';
import { createRetentionActivities } from '../activities/retention';
import type { Config } from '../src/config';
import { OutboxRetention } from '../src/services/retention/outbox-retention';
import { moduleActivities } from '../src/modules';

/**
 * The worker's composition root, like `src/composition.ts` for the API: the activities every
 * feature module declares (src/modules), and the one that belongs to no feature: the outbox
 * retention. Failures no retry can fix are made non-retryable (activities/failures.ts).
 */
export function createWorkerActivities(config: Config, db: DataSource) {
  return classifyFailures({
    ...createRetentionActivities({ outboxRetention: new OutboxRetention(db) }),
    ...moduleActivities({ config, db }),
  });
}
