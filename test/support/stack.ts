import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkerGroup } from '../../worker/worker-group';
import { createLogger } from '../../src/logger';
import type { Tracing } from '../../src/observability/tracing';
import { createWorkerMetrics, type WorkerMetrics } from '../../src/observability/worker-metrics';
import type { StartDispatcher } from '../../src/services/workflow-starts/dispatcher';
import { temporalClient } from '../../src/temporal/client';
import { createModuleWorkers, createWorker } from '../../worker/create-worker';
import { createStartDispatcher } from '../../worker/start-dispatcher';
import { startTestApi, type TestApi } from './api';
import { createTestDatabase } from './database';
import { recordReplayHistories } from './replay-histories';
import { devServerEnv, runInBackground, testDataConverter, timeSkippingEnv, workflowBundle } from './temporal';

export interface TestStack {
  api: TestApi;
  env: TestWorkflowEnvironment;
  worker: WorkerGroup;
  /**
   * The workflow-start dispatcher, as the worker process runs it beside the worker; with
   * `manualStarts` it does not run by itself, and a test makes its passes (`dispatchBatch`).
   */
  dispatcher: StartDispatcher;
  /** The worker's instruments, wired to the worker and the dispatcher as worker/main.ts wires them. */
  workerMetrics: WorkerMetrics;
  stop(): Promise<void>;
}

/**
 * The whole system for end-to-end tests: a Temporal CLI dev server, a fresh Postgres
 * database, the real worker (all workflows and activities) with the workflow-start dispatcher,
 * and the real API over HTTP. With `tracing` (test/support/tracing.ts), every part is wired to it
 * as src/main.ts and worker/main.ts wire theirs: the app's spans, the clients' interceptors, the
 * worker's interceptors and sink. With `manualStarts`, starts wait in the outbox until the test
 * dispatches them (what a request sees before the dispatcher has reached its start).
 */
export async function startStack(
  envOverrides: Record<string, string> = {},
  options: { sdkMetricsPort?: number; tracing?: Tracing; manualStarts?: boolean } = {},
): Promise<TestStack> {
  const env = await devServerEnv({ sdkMetricsPort: options.sdkMetricsPort });
  const database = await createTestDatabase();
  const tracing = options.tracing;
  // The API's client, with the tracing interceptors when tracing is on.
  const client = tracing?.clientInterceptors
    ? new Client({
        connection: env.connection,
        namespace: env.namespace,
        dataConverter: testDataConverter,
        interceptors: tracing.clientInterceptors,
      })
    : env.client;
  const api = await startTestApi({ temporal: client, database, env: envOverrides, tracing: tracing?.enabled });
  const workerMetrics = createWorkerMetrics(database.db);
  const worker = await createWorker({
    config: api.config,
    db: database.db,
    connection: env.nativeConnection,
    workflowBundle: await workflowBundle(),
    metrics: workerMetrics,
    tracing,
  });
  const moduleWorkers = await createModuleWorkers({ config: api.config, db: database.db, connection: env.nativeConnection });
  const running = Promise.all([worker.run(), ...moduleWorkers.map((w) => w.run())]);
  // On the worker's own connection, as worker/main.ts runs it: without a backlog its starts are eager.
  const dispatcherClient = temporalClient(env.nativeConnection, api.config.temporal, tracing?.clientInterceptors);
  const dispatcher = createStartDispatcher(
    api.config,
    database.db,
    dispatcherClient,
    createLogger('silent', 'start-dispatcher'),
    workerMetrics,
  );
  if (!options.manualStarts) dispatcher.start();
  return {
    api,
    env,
    worker,
    dispatcher,
    workerMetrics,
    stop: async () => {
      await dispatcher.stop();
      await recordReplayHistories(env.client);
      worker.shutdown();
      for (const w of moduleWorkers) w.shutdown();
      await running;
      await api.close();
      await database.close();
      await env.teardown();
    },
  };
}

export interface TimeSkippingStack {
  env: TestWorkflowEnvironment;
  api: TestApi;
  stop(): Promise<void>;
}

/**
 * The real API and the real worker (all workflows and activities) on the time-skipping test
 * server, for a workflow test file: one worker for the whole file, since the workflows a test's
 * orders start (tracking, receipt, review window) outlive the test and must not be left waiting
 * on a stopped worker (see `runInBackground`). Tests run the start dispatcher they need.
 */
export async function startTimeSkippingStack(): Promise<TimeSkippingStack> {
  const env = await timeSkippingEnv();
  const api = await startTestApi({ temporal: env.client });
  const stopWorker = runInBackground(
    await createWorker({
      config: api.config,
      db: api.database.db,
      connection: env.nativeConnection,
      workflowBundle: await workflowBundle(),
    }),
  );
  return {
    env,
    api,
    stop: async () => {
      await stopWorker();
      await api.close();
      await env.teardown();
    },
  };
}

/** Polls until `probe` returns a value (not undefined/null), or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | null | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
