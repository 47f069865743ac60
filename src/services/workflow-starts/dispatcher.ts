import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { DEFAULT_START_BATCH } from '../../config';
import { roundRobinRanking, type RoundRobinQueue } from '../../db/round-robin';
import type { Logger } from '../../logger';
import type { WorkflowStart, WorkflowStartOptions } from './start';

/**
 * How a start went: 'eager' is started with its first task handed straight to the worker in this
 * process (eager workflow start); 'existing' means the id was already taken, and the intent is
 * fulfilled all the same.
 */
export type StartResult = 'started' | 'eager' | 'existing';

/** What carries out one start on Temporal (src/temporal/start-executor.ts in the worker). */
export interface StartExecutor {
  /**
   * `eager`: the outbox has no backlog (this pass claimed less than a full batch), so the start
   * may ask Temporal to hand the workflow's first task straight to the worker beside it. In a
   * backlog every start goes through Temporal's task queue, whose fairness keeps one seller's
   * burst from taking every worker slot ahead of other sellers' work: eager starts during a
   * 10,000-event burst doubled another seller's p99 (bench/results/webhooks.md).
   */
  execute(start: WorkflowStart, how: { eager: boolean }): Promise<StartResult>;
}

/**
 * A step that turns other outbox rows into start intents before each pass (the webhook fan-out
 * of `outbox_events`); returns how many source rows it consumed.
 */
export type StartFeeder = () => Promise<number>;

export interface StartDispatcherOptions {
  db: DataSource;
  /** For the LISTEN connection that hears about new rows at commit time. */
  databaseUrl: string;
  executor: StartExecutor;
  feeders?: StartFeeder[];
  /** Channels besides `workflow_starts` whose NOTIFY wakes the loop (the feeders' tables). */
  channels?: string[];
  /** Poll interval when no notification arrives. */
  intervalMs: number;
  /** Longest wait before a failed start is retried; the wait doubles from 1 s up to this. */
  retryMaxMs: number;
  log: Logger;
  /** Told of every start attempted, for the worker's metrics (`workflow_starts_total`). */
  onStartSettled?: (workflowType: string, result: StartResult | 'failed') => void;
  /** Intents claimed per transaction. */
  batchSize?: number;
}

/** Starts in flight at once within a batch. */
const START_CONCURRENCY = 32;
const RETRY_BASE_MS = 1000;
/** Best-ranked candidates considered per claim, in batches: room to skip rows other dispatchers hold. */
const CANDIDATE_BATCHES = 4;
/** Intents rationed by their fairness key (a webhook delivery's seller); failed ones wait out a back-off. */
const PENDING_STARTS: RoundRobinQueue = {
  table: 'workflow_starts',
  key: 'fairness_key',
  order: ['id'],
  pending: 'started_at IS NULL',
  due: 'next_attempt_at <= now()',
};

/**
 * One pass's claim ($1: the batch size), round-robin across fairness keys. The ranking cannot lock
 * rows (window functions), so the rows are locked in a second step, from a few batches' worth of
 * the best-ranked candidates: rows another dispatcher holds are skipped, not waited for.
 * Exported for bench/workflow-starts/claim-cost.ts.
 */
export const CLAIM_STARTS = `WITH RECURSIVE ${roundRobinRanking(PENDING_STARTS, `$1 * ${CANDIDATE_BATCHES}`)}
  SELECT w.id, w.workflow_type, w.workflow_id, w.request_key, w.args, w.options, w.fairness_key
    FROM ranked r JOIN workflow_starts w ON w.id = r.id
   WHERE w.started_at IS NULL AND w.next_attempt_at <= now()
   ORDER BY r.turn, r.id
   LIMIT $1
     FOR UPDATE OF w SKIP LOCKED`;

interface PendingRow {
  id: string;
  workflow_type: string;
  workflow_id: string;
  request_key: string;
  args: unknown[];
  options: WorkflowStartOptions;
  fairness_key: string;
}

type Outcome = { id: string; error?: string };

/**
 * Starts the workflows recorded in `workflow_starts` — the one way the application starts
 * workflows from a change in the database. Besides it, the API makes a start only with the same
 * intent: a case action's or an offer move's update-with-start, and a wants optimization's
 * prompt start (src/temporal/prompt-starts.ts) (docs/architecture.md, "Background work").
 *
 * Durable: a batch is claimed with FOR UPDATE SKIP LOCKED (any number of worker replicas share
 * the work without taking the same rows), the starts are made, and each row is stamped started
 * or failed in the same transaction. A start whose stamp is lost is made again, and the
 * deterministic ids with REJECT_DUPLICATE make that harmless.
 *
 * Fair: pending intents are claimed round-robin across their fairness keys (one seller's burst
 * of webhook deliveries cannot hold up other sellers' or any other workflow's start), and a
 * failed start records `attempts` and `last_error` and waits (doubling, up to `retryMaxMs`) so it
 * cannot hold up the rows behind it. Requests for one workflow id are made in
 * the order they were written (a start before its signal-with-start); different ids in parallel.
 *
 * Fast: a trigger sends NOTIFY at commit, which wakes the loop at once; polling every
 * `intervalMs` covers a lost LISTEN connection and failed starts coming due.
 */
export class StartDispatcher {
  private stopped = false;
  private loop: Promise<void> | undefined;
  private listener: Client | undefined;
  private wake: (() => void) | undefined;
  private nudged = false;

  constructor(private readonly options: StartDispatcherOptions) {}

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.nudge();
    await this.loop;
    await this.listener?.end().catch(() => undefined);
  }

  /** Runs the feeders, then claims, starts and stamps one batch; returns how many rows it handled. */
  async dispatchBatch(): Promise<number> {
    let fed = 0;
    for (const feed of this.options.feeders ?? []) fed += await feed();
    return fed + (await this.startBatch());
  }

  private async startBatch(): Promise<number> {
    const batchSize = this.options.batchSize ?? DEFAULT_START_BATCH;
    return this.options.db.transaction(async (tx) => {
      const rows: PendingRow[] = await tx.query(CLAIM_STARTS, [batchSize]);
      if (rows.length === 0) return 0;
      const outcomes = await this.startAll(rows, { eager: rows.length < batchSize });
      const started = outcomes.filter((o) => o.error === undefined).map((o) => o.id);
      const failed = outcomes.filter((o): o is Required<Outcome> => o.error !== undefined);
      if (started.length > 0) {
        await tx.query(`UPDATE workflow_starts SET started_at = now(), attempts = attempts + 1 WHERE id = ANY ($1::bigint[])`, [started]);
      }
      if (failed.length > 0) {
        await tx.query(
          `UPDATE workflow_starts w
              SET attempts = attempts + 1, last_error = f.error,
                  next_attempt_at = now() + least($2::float8 * power(2, w.attempts), $3::float8) * interval '1 millisecond'
             FROM unnest($1::bigint[], $4::text[]) AS f (id, error)
            WHERE w.id = f.id`,
          [failed.map((f) => f.id), RETRY_BASE_MS, this.options.retryMaxMs, failed.map((f) => f.error)],
        );
        const byId = new Map(rows.map((r) => [r.id, r]));
        this.options.log.warn(
          {
            failed: failed.length,
            of: rows.length,
            workflowIds: failed.slice(0, 5).map((f) => byId.get(f.id)?.workflow_id),
            error: failed[0]!.error,
          },
          'workflow starts failed; they stay in the outbox and are retried',
        );
      }
      return rows.length;
    });
  }

  /**
   * Every start settles before the pass ends (a start left running would outlive stop() and race
   * the next pass). Rows of one workflow id run in order, and after a failure the rest of that id
   * waits too, so a signal-with-start never overtakes its start.
   */
  private async startAll(rows: PendingRow[], how: { eager: boolean }): Promise<Outcome[]> {
    const groups = new Map<string, PendingRow[]>();
    // Groups start in the fairness order of the claim; within one workflow id, in the order written.
    for (const row of rows) groups.set(row.workflow_id, [...(groups.get(row.workflow_id) ?? []), row]);
    for (const group of groups.values()) group.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
    const outcomes: Outcome[] = [];
    const runGroup = async (group: PendingRow[]) => {
      let error: string | undefined;
      for (const row of group) {
        if (error === undefined) {
          try {
            const result = await this.options.executor.execute(
              {
                workflowType: row.workflow_type,
                workflowId: row.workflow_id,
                requestKey: row.request_key,
                args: row.args,
                options: row.options,
                ...(row.fairness_key ? { fairnessKey: row.fairness_key } : {}),
              },
              how,
            );
            this.options.onStartSettled?.(row.workflow_type, result);
          } catch (err) {
            error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
            this.options.onStartSettled?.(row.workflow_type, 'failed');
          }
        }
        outcomes.push(error === undefined ? { id: row.id } : { id: row.id, error });
      }
    };
    // START_CONCURRENCY lanes, each taking the next group as soon as its last one settles: in
    // fixed waves of 32 the slowest start of each wave held up the next 32.
    const list = [...groups.values()];
    let next = 0;
    const lane = async () => {
      while (next < list.length) await runGroup(list[next++]!);
    };
    await Promise.allSettled(Array.from({ length: Math.min(START_CONCURRENCY, list.length) }, lane));
    return outcomes;
  }

  private async run(): Promise<void> {
    const batchSize = this.options.batchSize ?? DEFAULT_START_BATCH;
    while (!this.stopped) {
      if (!this.listener) await this.listen();
      let handled = 0;
      try {
        handled = await this.dispatchBatch();
      } catch (err) {
        this.options.log.warn({ err }, 'workflow start dispatch failed; intents stay in the outbox');
      }
      // A full batch means more are probably waiting: go again without sleeping.
      if (handled < batchSize && !this.stopped) await this.idle();
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
    const client = new Client({ connectionString: this.options.databaseUrl, application_name: 'workflow-start-dispatcher' });
    client.on('notification', () => this.nudge());
    client.on('error', (err) => {
      this.options.log.warn({ err }, 'start outbox LISTEN connection lost; polling until it is back');
      if (this.listener === client) this.listener = undefined;
    });
    try {
      await client.connect();
      for (const channel of ['workflow_starts', ...(this.options.channels ?? [])]) await client.query(`LISTEN ${channel}`);
      this.listener = client;
    } catch (err) {
      this.options.log.warn({ err }, 'could not LISTEN for start intents; polling');
      await client.end().catch(() => undefined);
    }
  }
}
