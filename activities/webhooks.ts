import type { DataSource, EntityManager } from 'typeorm';
import { OutboxEvent, WebhookEndpoint, type WebhookDeliveryStatus } from '../src/db/entities';
import { newId } from '../src/ids';
import { enqueueEmail } from '../src/integrations/email/outbox';
import { TEST_EVENT_TYPE } from '../src/services/webhooks/endpoints';
import { postWebhook, type WebhookResponse } from '../src/services/webhooks/http-post';
import { decryptSecret, signatureHeader } from '../src/services/webhooks/signing';

export interface WebhookActivityDeps {
  db: DataSource;
  webhooks: {
    secretKey: Buffer;
    allowPrivateUrls: boolean;
    disableAfterMs: number;
  };
}

export interface AttemptInput {
  eventId: string;
  endpointId: string;
  /** No retry follows this attempt: a failure makes the delivery FAILED. */
  finalAttempt: boolean;
  timeoutMs: number;
}

export type AttemptResult =
  | { outcome: 'delivered' }
  | { outcome: 'retry'; retryAfterMs: number | null }
  /** The receiver answered 410 Gone: the endpoint is now disabled. */
  | { outcome: 'gone' }
  /** The endpoint has failed for too long and is now disabled; its owner gets this message. */
  | { outcome: 'disabled'; notificationId: string | null }
  /** Nothing to send: the endpoint or event is gone, or the endpoint is disabled. */
  | { outcome: 'skipped' };

export interface WebhookActivities {
  attemptWebhookDelivery(input: AttemptInput): Promise<AttemptResult>;
}

const USER_AGENT = 'marketplace-webhooks/1.0';

export function createWebhookActivities(deps: WebhookActivityDeps): WebhookActivities {
  const { db, webhooks } = deps;
  return {
    /**
     * One HTTP attempt: signs and POSTs the event, then records the attempt and its effects on
     * the delivery and the endpoint in one transaction. Signature and timestamp are fresh per
     * attempt; `webhook-id` is the event id, the same on every retry and replay.
     */
    async attemptWebhookDelivery(input) {
      const [event, endpoint] = await Promise.all([
        db.getRepository(OutboxEvent).findOneBy({ id: input.eventId }),
        db.getRepository(WebhookEndpoint).findOneBy({ id: input.endpointId }),
      ]);
      // An event carries one seller's data and goes only to that seller's endpoints.
      if (!event || !endpoint || endpoint.sellerId !== event.sellerId) return { outcome: 'skipped' };
      const deliveryId = await ensureDelivery(db, event, endpoint.id);
      // A test delivery may try an endpoint before it is enabled; nothing else may.
      if (!endpoint.enabled && event.type !== TEST_EVENT_TYPE) {
        await db.query(`UPDATE webhook_deliveries SET status = 'FAILED' WHERE id = $1 AND status = 'PENDING'`, [deliveryId]);
        return { outcome: 'skipped' };
      }

      const body = JSON.stringify({ type: event.type, data: event.data });
      const timestamp = Math.floor(Date.now() / 1000);
      const secret = decryptSecret(webhooks.secretKey, endpoint.secretEncrypted);
      const attemptedAt = new Date();
      const response = await postWebhook({
        url: endpoint.url,
        // Custom headers first: the service's own headers always win.
        headers: {
          ...endpoint.headers,
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'webhook-id': event.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(secret, event.id, timestamp, body),
        },
        body,
        timeoutMs: input.timeoutMs,
        allowPrivate: webhooks.allowPrivateUrls,
      });
      return db.transaction((tx) => record(tx, { deliveryId, endpoint, attemptedAt, response, finalAttempt: input.finalAttempt }));
    },
  };

  async function record(
    tx: EntityManager,
    a: { deliveryId: string; endpoint: WebhookEndpoint; attemptedAt: Date; response: WebhookResponse; finalAttempt: boolean },
  ): Promise<AttemptResult> {
    const { statusCode } = a.response;
    const succeeded = statusCode !== null && statusCode >= 200 && statusCode < 300;
    const gone = statusCode === 410;
    const result = succeeded ? { outcome: 'delivered' as const } : gone ? { outcome: 'gone' as const } : await failed(tx, a.endpoint, a.response.retryAfterMs);
    const status: WebhookDeliveryStatus = succeeded ? 'SUCCEEDED' : result.outcome === 'retry' && !a.finalAttempt ? 'PENDING' : 'FAILED';

    await tx.query(
      `INSERT INTO webhook_attempts (id, delivery_id, endpoint_id, attempted_at, succeeded, status_code, latency_ms, error, response_excerpt)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [newId(), a.deliveryId, a.endpoint.id, a.attemptedAt, succeeded, statusCode, a.response.latencyMs, a.response.error ?? httpError(statusCode), a.response.excerpt],
    );
    await tx.query(
      `UPDATE webhook_deliveries
          SET attempts = attempts + 1, last_attempt_at = $2, status = $3,
              delivered_at = CASE WHEN $3 = 'SUCCEEDED' THEN now() ELSE delivered_at END
        WHERE id = $1`,
      [a.deliveryId, a.attemptedAt, status],
    );
    if (succeeded) {
      // Conditional, so the common case (not failing) writes nothing to the endpoint row.
      await tx.query(`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL`, [a.endpoint.id]);
    } else if (gone) {
      await tx.query(
        `UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'GONE', updated_at = now() WHERE id = $1 AND enabled`,
        [a.endpoint.id],
      );
    }
    return result;
  }

  /**
   * A failed attempt starts (or continues) the endpoint's failing period; once that period is
   * longer than `disableAfterMs`, the endpoint is disabled and its owner told, exactly once.
   */
  async function failed(tx: EntityManager, endpoint: WebhookEndpoint, retryAfterMs: number | null): Promise<AttemptResult> {
    await tx.query(`UPDATE webhook_endpoints SET failing_since = now() WHERE id = $1 AND failing_since IS NULL`, [endpoint.id]);
    // TypeORM answers an UPDATE … RETURNING with [rows, affected].
    const [[disabled]] = await tx.query(
      `UPDATE webhook_endpoints e SET enabled = false, disabled_reason = 'FAILING', updated_at = now()
        WHERE e.id = $1 AND e.enabled AND e.failing_since <= now() - make_interval(secs => $2 / 1000.0)
       RETURNING e.url, e.failing_since, (SELECT email FROM users u WHERE u.id = e.seller_id) AS email`,
      [endpoint.id, webhooks.disableAfterMs],
    );
    if (!disabled) return { outcome: 'retry', retryAfterMs };
    const notificationId = await enqueueEmail(tx, {
      to: disabled.email,
      kind: 'webhook-disabled',
      subject: 'Your webhook endpoint was disabled',
      text:
        `Deliveries to your webhook endpoint ${disabled.url} have failed since ${new Date(disabled.failing_since).toISOString()}, ` +
        `so it has been disabled and receives no further events.\n\n` +
        `Fix the receiver, then enable the endpoint again (PATCH /seller/webhooks/${endpoint.id} with {"enabled": true}). ` +
        `Failed deliveries can be inspected and replayed under /seller/webhooks/${endpoint.id}/failures.`,
    });
    return { outcome: 'disabled', notificationId };
  }
}

/** The delivery row of this event and endpoint, created on the first attempt. */
async function ensureDelivery(db: DataSource, event: OutboxEvent, endpointId: string): Promise<string> {
  const [row] = await db.query(
    `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, status)
     VALUES ($1, $2, $3, $4, 'PENDING')
     ON CONFLICT ON CONSTRAINT webhook_deliveries_event_endpoint_key DO UPDATE SET event_type = EXCLUDED.event_type
     RETURNING id`,
    [newId(), endpointId, event.id, event.type],
  );
  return row.id;
}

const httpError = (statusCode: number | null) => (statusCode === null ? null : statusCode >= 200 && statusCode < 300 ? null : `HTTP ${statusCode}`);
