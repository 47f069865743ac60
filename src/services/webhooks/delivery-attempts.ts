import type { DataSource, EntityManager } from 'typeorm';
import type { WebhookDeliveryStatus } from '../../db/entities';
import { newId } from '../../ids';
import { enqueueEmail } from '../../integrations/email/outbox';
import { TEST_EVENT_TYPE } from './endpoints';
import { postWebhook, type WebhookResponse } from './http-post';
import { decryptSecret, signatureHeader } from './signing';

export interface WebhookAttemptOptions {
  secretKey: Buffer;
  allowPrivateUrls: boolean;
  /** How long an endpoint may keep failing before it is disabled and its owner told. */
  disableAfterMs: number;
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

const USER_AGENT = 'marketplace-webhooks/1.0';

/**
 * Webhook delivery attempts: one signed POST of an event to an endpoint, and what it does to
 * the delivery, the endpoint and (when the endpoint is disabled) its owner's inbox. The
 * webhook-delivery workflow decides when to attempt; this decides what an attempt means.
 */
export class WebhookDeliveryAttempts {
  constructor(
    private readonly db: DataSource,
    private readonly options: WebhookAttemptOptions,
  ) {}

  /**
   * One HTTP attempt: signs and POSTs the event, then records the attempt and its effects on
   * the delivery and the endpoint in one transaction. Signature and timestamp are fresh per
   * attempt; `webhook-id` is the event id, the same on every retry and replay.
   */
  async attempt(input: AttemptInput): Promise<AttemptResult> {
    const target = await prepareDelivery(this.db, input.eventId, input.endpointId);
    if (!target) return { outcome: 'skipped' };
    const { deliveryId, event, endpoint } = target;
    // A test delivery may try an endpoint before it is enabled; nothing else may.
    if (!endpoint.enabled && event.type !== TEST_EVENT_TYPE) {
      await this.db.query(`UPDATE webhook_deliveries SET status = 'FAILED' WHERE id = $1 AND status = 'PENDING'`, [deliveryId]);
      return { outcome: 'skipped' };
    }

    const body = JSON.stringify({ type: event.type, data: event.data });
    const timestamp = Math.floor(Date.now() / 1000);
    const secret = decryptSecret(this.options.secretKey, endpoint.secretEncrypted);
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
      allowPrivate: this.options.allowPrivateUrls,
    });
    const attempt = { deliveryId, endpointId: endpoint.id, attemptedAt, response };
    const { statusCode } = response;
    // The common outcomes are one statement each, with no BEGIN and COMMIT around them: with
    // `prepareDelivery`, a delivered attempt is two round trips to the database (it was eight).
    if (succeeded(statusCode)) {
      // Conditional, so the common case (not failing) writes nothing to the endpoint row.
      await recordAttempt(
        this.db,
        attempt,
        'SUCCEEDED',
        `UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $3 AND failing_since IS NOT NULL`,
      );
      return { outcome: 'delivered' };
    }
    if (statusCode === 410) {
      await recordAttempt(
        this.db,
        attempt,
        'FAILED',
        `UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'GONE', updated_at = now() WHERE id = $3 AND enabled`,
      );
      return { outcome: 'gone' };
    }
    return this.db.transaction(async (tx) => {
      const result = await this.failed(tx, endpoint.id, response.retryAfterMs);
      await recordAttempt(tx, attempt, result.outcome === 'retry' && !input.finalAttempt ? 'PENDING' : 'FAILED');
      return result;
    });
  }

  /**
   * A failed attempt starts (or continues) the endpoint's failing period; once that period is
   * longer than `disableAfterMs`, the endpoint is disabled and its owner told, exactly once.
   */
  private async failed(tx: EntityManager, endpointId: string, retryAfterMs: number | null): Promise<AttemptResult> {
    await tx.query(`UPDATE webhook_endpoints SET failing_since = now() WHERE id = $1 AND failing_since IS NULL`, [endpointId]);
    // TypeORM answers an UPDATE … RETURNING with [rows, affected].
    const [[disabled]] = await tx.query(
      `UPDATE webhook_endpoints e SET enabled = false, disabled_reason = 'FAILING', updated_at = now()
        WHERE e.id = $1 AND e.enabled AND e.failing_since <= now() - make_interval(secs => $2 / 1000.0)
       RETURNING e.url, e.failing_since, (SELECT email FROM users u WHERE u.id = e.seller_id) AS email`,
      [endpointId, this.options.disableAfterMs],
    );
    if (!disabled) return { outcome: 'retry', retryAfterMs };
    const notificationId = await enqueueEmail(tx, {
      to: disabled.email,
      kind: 'webhook-disabled',
      ...endpointDisabledEmail(endpointId, disabled.url, new Date(disabled.failing_since)),
    });
    return { outcome: 'disabled', notificationId };
  }
}

/** The message telling a seller their endpoint was disabled, and how to recover. */
export function endpointDisabledEmail(endpointId: string, url: string, failingSince: Date): { subject: string; text: string } {
  return {
    subject: 'Your webhook endpoint was disabled',
    text:
      `Deliveries to your webhook endpoint ${url} have failed since ${failingSince.toISOString()}, ` +
      `so it has been disabled and receives no further events.\n\n` +
      `Fix the receiver, then enable the endpoint again (PATCH /seller/webhooks/${endpointId} with {"enabled": true}). ` +
      `Failed deliveries can be inspected and replayed under /seller/webhooks/${endpointId}/failures.`,
  };
}

interface DeliveryTarget {
  deliveryId: string;
  event: { id: string; type: string; data: unknown };
  endpoint: { id: string; url: string; headers: Record<string, string>; enabled: boolean; secretEncrypted: string };
}

/**
 * The event and endpoint of an attempt, and their delivery row (created on the first attempt),
 * in one statement; null when either is gone, or the endpoint is not the event's seller's: an
 * event carries one seller's data and goes only to that seller's endpoints.
 */
async function prepareDelivery(db: DataSource, eventId: string, endpointId: string): Promise<DeliveryTarget | null> {
  const [row] = await db.query(
    `WITH target AS (
       SELECT e.id AS event_id, e.type, e.data, p.id AS endpoint_id, p.url, p.headers, p.enabled, p.secret_encrypted
         FROM outbox_events e JOIN webhook_endpoints p ON p.seller_id = e.seller_id
        WHERE e.id = $1 AND p.id = $2),
     delivery AS (
       INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, status)
       SELECT $3, endpoint_id, event_id, type, 'PENDING' FROM target
       ON CONFLICT ON CONSTRAINT webhook_deliveries_event_endpoint_key DO UPDATE SET event_type = EXCLUDED.event_type
       RETURNING id)
     SELECT delivery.id AS delivery_id, target.* FROM target, delivery`,
    [eventId, endpointId, newId()],
  );
  if (!row) return null;
  return {
    deliveryId: row.delivery_id,
    event: { id: row.event_id, type: row.type, data: row.data },
    endpoint: { id: row.endpoint_id, url: row.url, headers: row.headers, enabled: row.enabled, secretEncrypted: row.secret_encrypted },
  };
}

/**
 * Records one attempt and the delivery's new status in one statement, with `endpointUpdate` (an
 * UPDATE of the endpoint, $3) when the outcome changes the endpoint: data-modifying CTEs run
 * exactly once, all or nothing.
 */
async function recordAttempt(
  db: DataSource | EntityManager,
  a: { deliveryId: string; endpointId: string; attemptedAt: Date; response: WebhookResponse },
  status: WebhookDeliveryStatus,
  endpointUpdate?: string,
): Promise<void> {
  const { statusCode } = a.response;
  await db.query(
    `WITH attempt AS (
       INSERT INTO webhook_attempts (id, delivery_id, endpoint_id, attempted_at, succeeded, status_code, latency_ms, error, response_excerpt)
       VALUES ($1, $2, $3, $4, $5 = 'SUCCEEDED', $6, $7, $8, $9))
     ${endpointUpdate ? `, endpoint AS (${endpointUpdate})` : ''}
     UPDATE webhook_deliveries
        SET attempts = attempts + 1, last_attempt_at = $4, status = $5,
            delivered_at = CASE WHEN $5 = 'SUCCEEDED' THEN now() ELSE delivered_at END
      WHERE id = $2`,
    [
      newId(),
      a.deliveryId,
      a.endpointId,
      a.attemptedAt,
      status,
      statusCode,
      a.response.latencyMs,
      a.response.error ?? httpError(statusCode),
      a.response.excerpt,
    ],
  );
}

/** A receiver's answer that delivers the event: any 2xx. */
const succeeded = (statusCode: number | null): statusCode is number => statusCode !== null && statusCode >= 200 && statusCode < 300;

const httpError = (statusCode: number | null) => (statusCode === null || succeeded(statusCode) ? null : `HTTP ${statusCode}`);
