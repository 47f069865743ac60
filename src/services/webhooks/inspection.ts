import type { WebhookDeliveryStatus } from '../../db/entities';
import { DataSource } from 'typeorm';
import { parseDuration } from '../../config';
import { ownedEndpoint } from './endpoints';

export const METRIC_WINDOWS = ['1h', '24h', '7d', '30d'] as const;
export type MetricWindow = (typeof METRIC_WINDOWS)[number];

export interface WebhookMetrics {
  window: MetricWindow;
  deliveries: { total: number; succeeded: number; failed: number; pending: number };
  /** Succeeded ÷ finished deliveries in the window; null when none finished. */
  successRate: number | null;
  attempts: { total: number; failed: number };
  /** Attempt latency percentiles in milliseconds; null when there were no attempts. */
  latencyMs: { p50: number | null; p90: number | null; p99: number | null };
}

export interface FailureFilter {
  page: number;
  size: number;
  statusCode?: number;
  eventType?: string;
  since?: Date;
}

export interface FailedAttemptView {
  attemptId: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  deliveryStatus: WebhookDeliveryStatus;
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

const round = (n: number | null) => (n === null ? null : Math.round(Number(n)));

/** Read-only views over recorded deliveries and attempts, for the endpoint's owner. */
export class WebhookInspection {
  constructor(private readonly db: DataSource) {}

  async metrics(sellerId: string, endpointId: string, window: MetricWindow): Promise<WebhookMetrics> {
    await ownedEndpoint(this.db, sellerId, endpointId);
    const windowMs = parseDuration(window);
    const [d] = await this.db.query(
      `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE status = 'SUCCEEDED')::int AS succeeded,
              count(*) FILTER (WHERE status = 'FAILED')::int AS failed,
              count(*) FILTER (WHERE status = 'PENDING')::int AS pending
         FROM webhook_deliveries
        WHERE endpoint_id = $1 AND created_at >= now() - make_interval(secs => $2 / 1000.0)`,
      [endpointId, windowMs],
    );
    const [a] = await this.db.query(
      `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE NOT succeeded)::int AS failed,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50,
              percentile_cont(0.9) WITHIN GROUP (ORDER BY latency_ms) AS p90,
              percentile_cont(0.99) WITHIN GROUP (ORDER BY latency_ms) AS p99
         FROM webhook_attempts
        WHERE endpoint_id = $1 AND attempted_at >= now() - make_interval(secs => $2 / 1000.0)`,
      [endpointId, windowMs],
    );
    const finished = d.succeeded + d.failed;
    return {
      window,
      deliveries: { total: d.total, succeeded: d.succeeded, failed: d.failed, pending: d.pending },
      successRate: finished === 0 ? null : d.succeeded / finished,
      attempts: { total: a.total, failed: a.failed },
      latencyMs: { p50: round(a.p50), p90: round(a.p90), p99: round(a.p99) },
    };
  }

  /** Failed attempts, newest first, one page at a time. */
  async failures(
    sellerId: string,
    endpointId: string,
    filter: FailureFilter,
  ): Promise<{ items: FailedAttemptView[]; page: number; size: number; total: number }> {
    await ownedEndpoint(this.db, sellerId, endpointId);
    const where = [`a.endpoint_id = $1`, `NOT a.succeeded`];
    const args: unknown[] = [endpointId];
    const add = (clause: string, value: unknown) => {
      args.push(value);
      where.push(clause.replace('?', `$${args.length}`));
    };
    if (filter.statusCode !== undefined) add('a.status_code = ?', filter.statusCode);
    if (filter.eventType !== undefined) add('d.event_type = ?', filter.eventType);
    if (filter.since !== undefined) add('a.attempted_at >= ?', filter.since);
    const from = `FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE ${where.join(' AND ')}`;
    const [{ total }] = await this.db.query(`SELECT count(*)::int AS total ${from}`, args);
    const rows = await this.db.query(
      `SELECT a.id, a.delivery_id, d.event_id, d.event_type, d.status, a.attempted_at, a.status_code, a.latency_ms,
              a.error, a.response_excerpt
         ${from}
        ORDER BY a.attempted_at DESC, a.id DESC
        LIMIT $${args.length + 1} OFFSET $${args.length + 2}`,
      [...args, filter.size, (filter.page - 1) * filter.size],
    );
    const items = rows.map((r: Record<string, unknown>): FailedAttemptView => ({
      attemptId: r.id as string,
      deliveryId: r.delivery_id as string,
      eventId: r.event_id as string,
      eventType: r.event_type as string,
      deliveryStatus: r.status as WebhookDeliveryStatus,
      attemptedAt: r.attempted_at as Date,
      statusCode: r.status_code as number | null,
      latencyMs: r.latency_ms as number,
      error: r.error as string | null,
      responseExcerpt: r.response_excerpt as string | null,
    }));
    return { items, page: filter.page, size: filter.size, total };
  }
}
