import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, makeTelemetryFilterString, Runtime } from '@temporalio/worker';
import type { WorkerGroup } from '../../worker/worker-group';
import { loadConfig } from '../../src/config';
import { SEARCH_ATTRIBUTE_ARGS, SEARCH_ATTRIBUTES } from '../../src/domain/search-attributes';
import { temporalDataConverter } from '../../src/temporal/data-converter';
import { TASK_QUEUE_FAIRNESS_ARGS } from '../../src/temporal/task-queue-fairness';
import { freePort, startDevServer } from './dev-server';
import { TEMPORAL_TEST_SERVER } from './env';

export { freePort } from './dev-server';
/** The workflow bundle of this run, built once by Jest's global set-up (test/support/workflow-bundle.ts). */
export { workflowBundle } from './workflow-bundle';

/**
 * The data converter of every test client and worker: payloads encrypted with the key test
 * configuration gets (the public embedded one), as production encrypts with its own.
 */
export const testDataConverter = temporalDataConverter(loadConfig({ DATABASE_URL: 'postgres://unused@localhost/unused' }).temporal);

let quiet = false;
/**
 * Worker state changes, expected activity retries and the SDK core's notices about the test
 * server's version are noise in test output; errors still show. Installed only by files that
 * use Temporal (the runtime keeps native handles that would hold other files open). With
 * `sdkMetricsPort` the SDK's Prometheus exporter listens there, as in the worker process.
 */
function quietRuntime(sdkMetricsPort?: number): void {
  if (quiet) return;
  quiet = true;
  const level = process.env.TEST_TEMPORAL_LOG_LEVEL === 'info' ? 'INFO' : 'ERROR';
  try {
    Runtime.install({
      logger: new DefaultLogger(level),
      telemetryOptions: {
        logging: { filter: makeTelemetryFilterString({ core: level }), console: {} },
        ...(sdkMetricsPort ? { metrics: { prometheus: { bindAddress: `127.0.0.1:${sdkMetricsPort}` } } } : {}),
      },
    });
  } catch {
    // Already installed in this Jest worker process by an earlier test file.
  }
}

/** The time-skipping test server (a 14-day timer runs in milliseconds). One per test file. */
export async function timeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  const port = await freePort();
  try {
    return await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: TEMPORAL_TEST_SERVER }, port },
      client: { dataConverter: testDataConverter },
    });
  } catch (error) {
    // The SDK starts the server, then connects to it; when the connection fails (its timeout
    // passes on a loaded machine) it throws without stopping the server, whose process then
    // outlives the test file and keeps its Jest worker from exiting.
    killTestServerOn(port);
    throw error;
  }
}

/** Kills the time-skipping server process started with `port` as its argument (Linux's /proc; elsewhere nothing). */
function killTestServerOn(port: number): void {
  if (!existsSync('/proc')) return;
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    let args: string[];
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // exited meanwhile, or not ours to read
    }
    if (args[0] === TEMPORAL_TEST_SERVER && args.includes(String(port))) process.kill(Number(pid), 'SIGKILL');
  }
}

/**
 * Runs `worker` in the background, for every test of a file that shares one time-skipping server;
 * the returned function stops it and waits until it has (call it before the server's teardown).
 *
 * Tests whose workflows can outlive the one they wait for (the start dispatcher starts every
 * workflow the API asked for) need this instead of a worker per test: the test server skips time
 * only while no workflow or activity task is outstanding, on any task queue. A workflow left
 * running by a stopped worker keeps one outstanding for good — its activities wait for a poller,
 * and its next workflow task goes to the stopped worker's sticky queue, which the test server
 * never hands back to the normal queue (it has no sticky schedule-to-start timeout, and its
 * ShutdownWorker does nothing) — so a later `env.sleep` or `result()` waits in real time.
 * Terminating such a workflow does not help: the test server keeps the lock its outstanding task
 * took. A worker that lives as long as the server drains every queue.
 */
export function runInBackground(worker: WorkerGroup): () => Promise<void> {
  const running = worker.run();
  // Surfaced by the stop below; a worker that fails early must not be an unhandled rejection.
  running.catch(() => undefined);
  return async () => {
    worker.shutdown();
    await running;
  };
}

/** The dev server's arguments in the tests: quiet, with the search attributes and fairness production has. */
export const TEST_DEV_SERVER_ARGS = ['--log-level', 'error', ...SEARCH_ATTRIBUTE_ARGS, ...TASK_QUEUE_FAIRNESS_ARGS];

/**
 * The environment variable through which Jest's global set-up hands every test worker the address
 * of the run's Temporal dev server.
 */
export const DEV_SERVER_ENV = 'MTS_TEMPORAL_ADDRESS';

/**
 * A real Temporal CLI dev server, for end-to-end tests: by default a namespace of its own on the
 * run's dev server (started once by Jest's global set-up), so test files share one server without
 * seeing each other's workflows, task queues or Schedules; configurations built by
 * `startTestApi` from its client use that namespace. With `port`, a server of its own on that
 * port (a test that brings Temporal up where clients have been failing to reach it; reserve it
 * with `freePort`), which its teardown stops too.
 */
export async function devServerEnv(options: { port?: number; sdkMetricsPort?: number } = {}): Promise<TestWorkflowEnvironment> {
  quietRuntime(options.sdkMetricsPort);
  const shared = process.env[DEV_SERVER_ENV];
  if (options.port === undefined && shared) {
    const namespace = await createNamespace(shared);
    return TestWorkflowEnvironment.createFromExistingServer({ address: shared, namespace, client: { dataConverter: testDataConverter } });
  }
  const server = await startDevServer({ port: options.port, args: TEST_DEV_SERVER_ARGS });
  let env: TestWorkflowEnvironment;
  try {
    env = await TestWorkflowEnvironment.createFromExistingServer({ address: server.address, client: { dataConverter: testDataConverter } });
  } catch (error) {
    await server.stop();
    throw error;
  }
  // An environment made for an existing server leaves the server running at teardown.
  const closeConnections = env.teardown.bind(env);
  env.teardown = async () => {
    await closeConnections();
    await server.stop();
  };
  return env;
}

/**
 * Registers a fresh namespace on the dev server at `address`, with the custom search attributes
 * (the server's `--search-attribute` arguments apply to its `default` namespace only). Usable at
 * once: the server reads a namespace it has not cached yet through to its store.
 */
async function createNamespace(address: string): Promise<string> {
  const namespace = `test-${randomBytes(6).toString('hex')}`;
  const connection = await Connection.connect({ address });
  try {
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(
        SEARCH_ATTRIBUTES.map((key) => [key.name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
      ),
    });
  } finally {
    await connection.close();
  }
  return namespace;
}
