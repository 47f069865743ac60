import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import { registerDbPoolMetrics } from './api-metrics';
import type { ExtraMetrics } from './metrics-server';

/** The worker's own instruments (docs/operations.md); the Temporal SDK's are appended at scrape time. */
export interface WorkerMetrics {
  registry: Registry;
  /** Starts carried out by this process's dispatcher, by workflow type and result. */
  workflowStarts: Counter<'workflow_type' | 'result'>;
  eagerStarts: Counter<'workflow_type'>;
  /** Webhook delivery attempts made by this process, by what the attempt decided. */
  webhookAttempts: Counter<'outcome'>;
}

/**
 * The outboxes the worker drains. Their backlog is read from Postgres at scrape time, so every
 * replica reports the same (shared) figure: alert on `max`, not `sum`, across replicas.
 */
const OUTBOXES = {
  outbox_events: `SELECT count(*)::int AS pending, extract(epoch FROM now() - min(created_at))::float8 AS oldest
                    FROM outbox_events WHERE dispatched_at IS NULL`,
  workflow_starts: `SELECT count(*)::int AS pending, extract(epoch FROM now() - min(created_at))::float8 AS oldest
                      FROM workflow_starts WHERE started_at IS NULL`,
} as const;

export function createWorkerMetrics(db: DataSource, registry = new Registry()): WorkerMetrics {
  collectDefaultMetrics({ register: registry });
  registerDbPoolMetrics(registry, db, 'worker');
  const backlog = async () =>
    Promise.all(
      Object.entries(OUTBOXES).map(async ([outbox, sql]) => {
        const [row] = (await db.query(sql)) as Array<{ pending: number; oldest: number | null }>;
        return { outbox, pending: row?.pending ?? 0, oldest: row?.oldest ?? 0 };
      }),
    );
  new Gauge({
    name: 'outbox_pending_rows',
    help: 'Rows waiting in an outbox: webhook events not yet fanned out, workflow starts not yet made.',
    labelNames: ['outbox'],
    registers: [registry],
    async collect() {
      for (const b of await backlog()) this.set({ outbox: b.outbox }, b.pending);
    },
  });
  new Gauge({
    name: 'outbox_lag_seconds',
    help: 'Age of the oldest row still waiting in an outbox (0 when it is empty).',
    labelNames: ['outbox'],
    registers: [registry],
    async collect() {
      for (const b of await backlog()) this.set({ outbox: b.outbox }, b.oldest);
    },
  });
  new Gauge({
    name: 'money_reconciliations_recorded',
    help: 'Stuck payouts and releases the money reconciler has handled (docs/money.md "Reconciler"), by kind and whether it settled them; a rising count means money workflows are giving up.',
    labelNames: ['kind', 'result'],
    registers: [registry],
    async collect() {
      this.reset();
      const rows: Array<{ kind: string; settled: boolean; n: number }> = await db.query(
        `SELECT kind, error IS NULL AS settled, count(*)::int AS n FROM money_reconciliations GROUP BY 1, 2`,
      );
      for (const r of rows) this.set({ kind: r.kind, result: r.settled ? 'settled' : 'failed' }, r.n);
    },
  });
  return {
    registry,
    workflowStarts: new Counter({
      name: 'workflow_starts_total',
      help: 'Workflow starts (and signal-with-starts) the dispatcher made; result="failed" is a dispatch failure that will be retried.',
      labelNames: ['workflow_type', 'result'],
      registers: [registry],
    }),
    eagerStarts: new Counter({
      name: 'workflow_starts_eager_total',
      help: 'Of the started workflows, those whose first task Temporal handed straight to this worker (eager start) instead of queueing it.',
      labelNames: ['workflow_type'],
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: 'webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts by outcome: delivered, retry (will try again), gone (410), disabled (endpoint switched off), skipped.',
      labelNames: ['outcome'],
      registers: [registry],
    }),
  };
}

/**
 * The Temporal SDK's Prometheus exporter (Runtime telemetry), read over loopback and appended
 * to the worker's own scrape so operators have one target per worker.
 */
export function sdkMetrics(port: number): ExtraMetrics {
  return async () => {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2000) });
    if (!res.ok) throw new Error(`Temporal SDK exporter answered ${res.status}`);
    return res.text();
  };
}
