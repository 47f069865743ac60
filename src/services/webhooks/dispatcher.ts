import type { Client as TemporalClient } from '@temporalio/client';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import type { Config } from '../../config';
import type { Logger } from '../../logger';
import { WorkflowStarters } from '../../temporal/starters';
import { webhookDeliveryStarter } from './delivery-starter';
import type { StartDelivery } from './endpoints';

export interface DispatcherOptions {
  db: DataSource;
  /** For the LISTEN connection that hears about new outbox rows at commit time. */
  databaseUrl: string;
  startDelivery: StartDelivery;
  /** Poll interval when no notification arrives (and the wait after a failed pass). */
  intervalMs: number;
  log: Logger;
  /** Events claimed per transaction. */
  batchSize?: number;
}

/** Workflow starts in flight at once within a batch. */
const START_CONCURRENCY = 32;

/**
 * Turns outbox events into delivery workflows, one per (event, endpoint subscribed to its type
 * and enabled at this moment). Subscriptions are matched at dispatch time.
 *
 * Durable by construction: a batch of undispatched rows is claimed with FOR UPDATE SKIP LOCKED
 * (so any number of worker replicas share the work without taking the same rows), the workflows
 * are started, and only then are the rows stamped, in the same transaction. If Temporal is down
 * the transaction rolls back and the rows wait for the next pass; a row whose workflows started
 * but whose stamp was lost is dispatched again, and the deterministic workflow ids
 * (REJECT_DUPLICATE) make that harmless.
 *
 * Latency: a trigger on `outbox_events` sends NOTIFY at commit, which wakes the loop at once;
 * polling every `intervalMs` covers a lost LISTEN connection.
 */
export class OutboxDispatcher {
  private stopped = false;
  private loop: Promise<void> | undefined;
  private listener: Client | undefined;
  private wake: (() => void) | undefined;
  private nudged = false;

  constructor(private readonly options: DispatcherOptions) {}

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.nudge();
    await this.loop;
    await this.listener?.end().catch(() => undefined);
  }

  /** Claims, starts and stamps one batch; returns how many events it dispatched. */
  async dispatchBatch(): Promise<number> {
    const batchSize = this.options.batchSize ?? 100;
    return this.options.db.transaction(async (tx) => {
      const rows: Array<{ event_id: string; endpoint_id: string | null }> = await tx.query(
        `WITH batch AS (
           SELECT id, seller_id, type FROM outbox_events
            WHERE dispatched_at IS NULL
            ORDER BY created_at
            LIMIT $1
              FOR UPDATE SKIP LOCKED)
         SELECT b.id AS event_id, e.id AS endpoint_id
           FROM batch b
           LEFT JOIN webhook_endpoints e ON e.seller_id = b.seller_id AND e.enabled AND b.type = ANY (e.subscriptions)`,
        [batchSize],
      );
      if (rows.length === 0) return 0;
      const starts = rows.filter((r) => r.endpoint_id !== null);
      for (let i = 0; i < starts.length; i += START_CONCURRENCY) {
        // Every start settles before the pass fails: a start left running in the background would
        // outlive stop() and retry on a closed Temporal connection (and race the next pass).
        const results = await Promise.allSettled(
          starts.slice(i, i + START_CONCURRENCY).map((r) => this.options.startDelivery(r.event_id, r.endpoint_id!, { replay: false })),
        );
        const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
        if (failed) throw failed.reason;
      }
      const eventIds = [...new Set(rows.map((r) => r.event_id))];
      await tx.query(`UPDATE outbox_events SET dispatched_at = now() WHERE id = ANY ($1::uuid[])`, [eventIds]);
      return eventIds.length;
    });
  }

  private async run(): Promise<void> {
    const batchSize = this.options.batchSize ?? 100;
    while (!this.stopped) {
      if (!this.listener) await this.listen();
      let dispatched = 0;
      try {
        dispatched = await this.dispatchBatch();
      } catch (err) {
        this.options.log.warn({ err }, 'webhook dispatch failed; events stay in the outbox');
      }
      // A full batch means more are probably waiting: go again without sleeping.
      if (dispatched < batchSize && !this.stopped) await this.idle();
    }
  }

  private idle(): Promise<void> {
    if (this.nudged) {
      this.nudged = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        this.nudged = false;
        resolve();
      };
      const timer = setTimeout(done, this.options.intervalMs);
      this.wake = done;
    });
  }

  private nudge(): void {
    if (this.wake) this.wake();
    else this.nudged = true;
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.options.databaseUrl, application_name: 'webhook-dispatcher' });
    client.on('notification', () => this.nudge());
    client.on('error', (err) => {
      this.options.log.warn({ err }, 'outbox LISTEN connection lost; polling until it is back');
      if (this.listener === client) this.listener = undefined;
    });
    try {
      await client.connect();
      await client.query('LISTEN outbox_events');
      this.listener = client;
    } catch (err) {
      this.options.log.warn({ err }, 'could not LISTEN for outbox events; polling');
      await client.end().catch(() => undefined);
    }
  }
}

/** The dispatcher as the worker runs it, from configuration. */
export function createOutboxDispatcher(config: Config, db: DataSource, temporal: TemporalClient, log: Logger): OutboxDispatcher {
  return new OutboxDispatcher({
    db,
    databaseUrl: config.databaseUrl,
    startDelivery: webhookDeliveryStarter(new WorkflowStarters(temporal, config.temporal.taskQueue), config.webhooks),
    intervalMs: config.webhooks.dispatchIntervalMs,
    log,
  });
}
