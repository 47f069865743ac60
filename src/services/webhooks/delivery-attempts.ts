import type { DataSource, EntityManager } from 'typeorm';
import { OutboxEvent, WebhookEndpoint, type WebhookDeliveryStatus } from '../../db/entities';
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
    const [event, endpoint] = await Promise.all([
      this.db.getRepository(OutboxEvent).findOneBy({ id: input.eventId }),
      this.db.getRepository(WebhookEndpoint).findOneBy({ id: input.endpointId }),
    ]);
    // An event carries one seller's data and goes only to that seller's endpoints.
    if (!event || !endpoint || endpoint.sellerId !== event.sellerId) return { outcome: 'skipped' };
    const deliveryId = await ensureDelivery(this.db, event, endpoint.id);
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
    return this.db.transaction((tx) => this.record(tx, { deliveryId, endpoint, attemptedAt, response, finalAttempt: input.finalAttempt }));
  }

  private async record(
    tx: EntityManager,
    a: { deliveryId: string; endpoint: WebhookEndpoint; attemptedAt: Date; response: WebhookResponse; finalAttempt: boolean },
  ): Promise<AttemptResult> {
    const { statusCode } = a.response;
    const succeeded = statusCode !== null && statusCode >= 200 && statusCode < 300;
    const gone = statusCode === 410;
    const result = succeeded
      ? { outcome: 'delivered' as const }
      : gone
        ? { outcome: 'gone' as const }
        : await this.failed(tx, a.endpoint, a.response.retryAfterMs);
    const status: WebhookDeliveryStatus = succeeded ? 'SUCCEEDED' : result.outcome === 'retry' && !a.finalAttempt ? 'PENDING' : 'FAILED';

    await tx.query(
      `INSERT INTO webhook_attempts (id, delivery_id, endpoint_id, attempted_at, succeeded, status_code, latency_ms, error, response_excerpt)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        newId(),
        a.deliveryId,
        a.endpoint.id,
        a.attemptedAt,
        succeeded,
        statusCode,
        a.response.latencyMs,
        a.response.error ?? httpError(statusCode),
        a.response.excerpt,
      ],
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
  private async failed(tx: EntityManager, endpoint: WebhookEndpoint, retryAfterMs: number | null): Promise<AttemptResult> {
    await tx.query(`UPDATE webhook_endpoints SET failing_since = now() WHERE id = $1 AND failing_since IS NULL`, [endpoint.id]);
    // TypeORM answers an UPDATE … RETURNING with [rows, affected].
    const [[disabled]] = await tx.query(
      `UPDATE webhook_endpoints e SET enabled = false, disabled_reason = 'FAILING', updated_at = now()
        WHERE e.id = $1 AND e.enabled AND e.failing_since <= now() - make_interval(secs => $2 / 1000.0)
       RETURNING e.url, e.failing_since, (SELECT email FROM users u WHERE u.id = e.seller_id) AS email`,
      [endpoint.id, this.options.disableAfterMs],
    );
    if (!disabled) return { outcome: 'retry', retryAfterMs };
    const notificationId = await enqueueEmail(tx, {
      to: disabled.email,
      kind: 'webhook-disabled',
      ...endpointDisabledEmail(endpoint.id, disabled.url, new Date(disabled.failing_since)),
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

const httpError = (statusCode: number | null) =>
  statusCode === null ? null : statusCode >= 200 && statusCode < 300 ? null : `HTTP ${statusCode}`;
