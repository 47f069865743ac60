import type { DataSource } from 'typeorm';

export interface PruneResult {
  workflowStarts: number;
  webhookAttempts: number;
  webhookDeliveries: number;
  outboxEvents: number;
}

/** Rows deleted per statement, so one pass never holds long locks on a busy table. */
const BATCH = 1000;

/**
 * Deletes what the outboxes no longer need once it is older than the retention age
 * (docs/operations.md, "Retention"): workflow starts already made; webhook attempts; finished
 * deliveries (their attempts go with them); and fanned-out events that no delivery refers to
 * any more. A pending delivery keeps its event, so an event is never pruned under a running
 * delivery, and an event the alerts matcher has not read yet stays for it. Each step deletes in batches until nothing is left.
 */
export class OutboxRetention {
  constructor(private readonly db: DataSource) {}

  async prune(olderThanMs: number): Promise<PruneResult> {
    const cutoff = new Date(Date.now() - olderThanMs);
    return {
      workflowStarts: await this.drain(
        `DELETE FROM workflow_starts WHERE id IN (
           SELECT id FROM workflow_starts WHERE started_at < $1 LIMIT ${BATCH})`,
        cutoff,
      ),
      webhookAttempts: await this.drain(
        `DELETE FROM webhook_attempts WHERE id IN (
           SELECT id FROM webhook_attempts WHERE attempted_at < $1 LIMIT ${BATCH})`,
        cutoff,
      ),
      webhookDeliveries: await this.drain(
        `DELETE FROM webhook_deliveries WHERE id IN (
           SELECT id FROM webhook_deliveries WHERE status <> 'PENDING' AND created_at < $1 LIMIT ${BATCH})`,
        cutoff,
      ),
      outboxEvents: await this.drain(
        `DELETE FROM outbox_events WHERE id IN (
           SELECT e.id FROM outbox_events e
            WHERE e.dispatched_at < $1 AND e.alerts_matched_at IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)
            LIMIT ${BATCH})`,
        cutoff,
      ),
    };
  }

  private async drain(sql: string, cutoff: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const [, affected] = (await this.db.query(sql, [cutoff])) as [unknown, number];
      total += affected;
      if (affected < BATCH) return total;
    }
  }
}
