import { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  bundleWorkflowCode,
  DefaultLogger,
  makeTelemetryFilterString,
  Runtime,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { WORKFLOWS_PATH } from '../../worker/create-worker';
import { CASE_SEARCH_ATTRIBUTE_ARGS } from '../../src/domain/cases/search-attributes';
import { TEMPORAL_CLI, TEMPORAL_TEST_SERVER } from './env';

let quiet = false;
/**
 * Worker state changes, expected activity retries and the SDK core's notices about the test
 * server's version are noise in test output; errors still show. Installed only by files that
 * use Temporal (the runtime keeps native handles that would hold other files open).
 */
function quietRuntime(): void {
  if (quiet) return;
  quiet = true;
  const level = process.env.TEST_TEMPORAL_LOG_LEVEL === 'info' ? 'INFO' : 'ERROR';
  try {
    Runtime.install({
      logger: new DefaultLogger(level),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: level }), console: {} } },
    });
  } catch {
    // Already installed in this Jest worker process by an earlier test file.
  }
}

/** The time-skipping test server (a 14-day timer runs in milliseconds). One per test file. */
export function timeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: TEMPORAL_TEST_SERVER } },
  });
}

/** A real Temporal CLI dev server on a free port, for end-to-end tests. */
export function devServerEnv(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: TEMPORAL_CLI },
      namespace: 'default',
      extraArgs: ['--log-level', 'error', ...CASE_SEARCH_ATTRIBUTE_ARGS],
    },
  });
}

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** The workflow bundle, built once per test file (≈1.5 s) instead of once per worker. */
export const workflowBundle = () =>
  (bundle ??= bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietLogger }));

const noop = () => undefined;
const quietLogger = { trace: noop, debug: noop, info: noop, warn: noop, error: console.error, log: noop };
