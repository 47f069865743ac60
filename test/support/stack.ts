import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { createLogger } from '../../src/logger';
import type { StartDispatcher } from '../../src/services/workflow-starts/dispatcher';
import { createWorker } from '../../worker/create-worker';
import { createStartDispatcher } from '../../worker/start-dispatcher';
import { startTestApi, type TestApi } from './api';
import { createTestDatabase } from './database';
import { devServerEnv, workflowBundle } from './temporal';

export interface TestStack {
  api: TestApi;
  env: TestWorkflowEnvironment;
  worker: Worker;
  /** The workflow-start dispatcher, as the worker process runs it beside the worker. */
  dispatcher: StartDispatcher;
  stop(): Promise<void>;
}

/**
 * The whole system for end-to-end tests: a Temporal CLI dev server, a fresh Postgres
 * database, the real worker (all workflows and activities) with the workflow-start dispatcher,
 * and the real API over HTTP.
 */
export async function startStack(envOverrides: Record<string, string> = {}): Promise<TestStack> {
  const env = await devServerEnv();
  const database = await createTestDatabase();
  const api = await startTestApi({ temporal: env.client, database, env: envOverrides });
  const worker = await createWorker({
    config: api.config,
    db: database.db,
    connection: env.nativeConnection,
    workflowBundle: await workflowBundle(),
  });
  const running = worker.run();
  const dispatcher = createStartDispatcher(api.config, database.db, env.client, createLogger('silent', 'start-dispatcher'));
  dispatcher.start();
  return {
    api,
    env,
    worker,
    dispatcher,
    stop: async () => {
      await dispatcher.stop();
      worker.shutdown();
      await running;
      await api.close();
      await database.drop();
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
