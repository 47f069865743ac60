import type { OutboxRetention, PruneResult } from '../src/services/retention/outbox-retention';

export type { PruneResult };

export interface RetentionActivityDeps {
  outboxRetention: OutboxRetention;
}

export interface RetentionActivities {
  pruneOutboxes(olderThanMs: number): Promise<PruneResult>;
}

export function createRetentionActivities({ outboxRetention }: RetentionActivityDeps): RetentionActivities {
  return {
    pruneOutboxes: (olderThanMs) => outboxRetention.prune(olderThanMs),
  };
}
