import { writeFileSync } from 'node:fs';
import { bundleWorkflowCode, type WorkflowBundleOption } from '@temporalio/worker';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from '../../worker/workflow-bundles';

/**
 * The environment variable through which Jest's global set-up hands every test worker the path
 * of the workflow bundle it built for this run.
 */
export const WORKFLOW_BUNDLE_ENV = 'MTS_WORKFLOW_BUNDLE';

const noop = () => undefined;
const quietLogger = { trace: noop, debug: noop, info: noop, warn: noop, error: console.error, log: noop };

/**
 * Bundles the workflows from the sources (not dist/workflow-bundle.js, which `npm run build`
 * makes from the last compile and which may be older than the sources under test), with the
 * interceptors every bundle has.
 */
export const bundleWorkflowsFromSources = () =>
  bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    logger: quietLogger,
  });

/** Bundles the workflows from the sources into `file` (Jest's global set-up, once per run). */
export async function writeWorkflowBundle(file: string): Promise<void> {
  const { code } = await bundleWorkflowsFromSources();
  writeFileSync(file, code);
}

let bundle: Promise<WorkflowBundleOption> | undefined;

/**
 * The workflow bundle of this run: the file Jest's global set-up wrote, or, outside Jest (the
 * benches), one bundled here once per process (≈2.4 s).
 */
export const workflowBundle = (): Promise<WorkflowBundleOption> => {
  const codePath = process.env[WORKFLOW_BUNDLE_ENV];
  if (codePath) return Promise.resolve({ codePath });
  return (bundle ??= bundleWorkflowsFromSources());
};
