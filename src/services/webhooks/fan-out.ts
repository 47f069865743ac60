import type { DataSource } from 'typeorm';
import type { WebhookDeliveryPolicy } from '../../../workflows/contracts/webhook-delivery';
import { requestWorkflowStarts, type WorkflowStart } from '../workflow-starts';
import { DEFAULT_START_BATCH } from '../../config';
import type { StartFeeder } from '../workflow-starts/dispatcher';
import { roundRobinRanking, type RoundRobinQueue } from '../../db/round-robin';

/** Events not yet fanned out, rationed by seller. */
const PENDING_EVENTS: RoundRobinQueue = {
  table: 'outbox_events',
  key: 'seller_id',
  order: ['created_at', 'id'],
  pending: 'dispatched_at IS NULL',
};

/**
 * One pass's claim ($1: the batch size): events round-robin across sellers, each with the
 * endpoints subscribed to its type (none: one row with a null endpoint). Four batches' worth of
 * candidates leave room to skip events another worker holds. Exported for
 * bench/workflow-starts/claim-cost.ts.
 */
export const CLAIM_EVENTS = `WITH RECURSIVE ${roundRobinRanking(PENDING_EVENTS, '$1 * 4')},
  batch AS (
    SELECT o.id, o.seller_id, o.type FROM ranked r JOIN outbox_events o ON o.id = r.id
     WHERE o.dispatched_at IS NULL
     ORDER BY r.turn, r.created_at, r.id
     LIMIT $1
       FOR UPDATE OF o SKIP LOCKED)
  SELECT b.id AS event_id, b.seller_id, b.type, e.id AS endpoint_id
    FROM batch b
    LEFT JOIN webhook_endpoints e ON e.seller_id = b.seller_id AND e.enabled AND b.type = ANY (e.subscriptions)`;

/** What a delivery's summary and search attributes name: the event, its type and its seller. */
export interface WebhookEventRef {
  id: string;
  type: string;
  sellerId: string;
}

/**
 * The start of `webhook:{eventId}:{endpointId}`, one event to one endpoint, with the retry policy
 * frozen into its input; a replay re-runs the same id (src/modules/webhooks.ts).
 */
export type WebhookDeliveryStart = (
  event: WebhookEventRef,
  endpointId: string,
  policy: WebhookDeliveryPolicy,
  options: { replay: boolean },
) => WorkflowStart;

/**
 * Turns outbox events into delivery start intents, one per (event, endpoint subscribed to its
 * type and enabled at this moment): subscriptions are matched at dispatch time. Events are
 * claimed with FOR UPDATE SKIP LOCKED and stamped in the transaction that writes their intents,
 * so an event fans out exactly once; the start dispatcher then starts the deliveries. The retry
 * policy is frozen into each delivery's input here. Events are taken round-robin across sellers
 * (each seller's oldest, then each seller's second…), like the start intents after them, so one
 * seller's burst does not hold up another seller's event (docs/webhooks.md, "Fairness").
 */
export function webhookFanOut(
  db: DataSource,
  policy: WebhookDeliveryPolicy,
  deliveryStart: WebhookDeliveryStart,
  batchSize = DEFAULT_START_BATCH,
): StartFeeder {
  return () =>
    db.transaction(async (tx) => {
      const rows: Array<{ event_id: string; seller_id: string; type: string; endpoint_id: string | null }> = await tx.query(CLAIM_EVENTS, [
        batchSize,
      ]);
      if (rows.length === 0) return 0;
      await requestWorkflowStarts(
        tx,
        rows
          .filter((r) => r.endpoint_id !== null)
          .map((r) => deliveryStart({ id: r.event_id, type: r.type, sellerId: r.seller_id }, r.endpoint_id!, policy, { replay: false })),
      );
      const eventIds = [...new Set(rows.map((r) => r.event_id))];
      await tx.query(`UPDATE outbox_events SET dispatched_at = now() WHERE id = ANY ($1::uuid[])`, [eventIds]);
      return eventIds.length;
    });
}

/** The delivery policy from configuration (docs/webhooks.md). */
export const deliveryPolicy = (config: { retryScheduleMs: number[]; attemptTimeoutMs: number }): WebhookDeliveryPolicy => ({
  retryScheduleMs: config.retryScheduleMs,
  attemptTimeoutMs: config.attemptTimeoutMs,
  localAttempts: true,
});
