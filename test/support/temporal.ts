import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { WORKFLOWS_PATH } from '../../worker/create-worker';
import { TEMPORAL_CLI, TEMPORAL_TEST_SERVER } from './env';

/** The time-skipping test server (a 14-day timer runs in milliseconds). One per test file. */
export const timeSkippingEnv = () =>
  TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: TEMPORAL_TEST_SERVER } },
  });

/** A real Temporal CLI dev server on a free port, for end-to-end tests. */
export const devServerEnv = () =>
  TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: TEMPORAL_CLI }, namespace: 'default', extraArgs: ['--log-level', 'error'] },
  });

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** The workflow bundle, built once per test file (≈1.5 s) instead of once per worker. */
export const workflowBundle = () =>
  (bundle ??= bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietLogger }));

const noop = () => undefined;
const quietLogger = { trace: noop, debug: noop, info: noop, warn: noop, error: console.error, log: noop };
