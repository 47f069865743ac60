// `npm run build`, after the full type-check: compiles what production runs into dist/
// (tsconfig.build.json) and prebuilds the workflow bundle the compiled worker loads, so that
// production needs neither TypeScript nor a bundling step at start.
import { Buffer } from 'node:buffer';
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { ROOT } from './lib.mjs';

const DIST = path.join(ROOT, 'dist');
const require = createRequire(import.meta.url);

// A clean dist/: a module deleted from the sources must not linger in the image.
rmSync(DIST, { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });

// Data files that compiled modules read relative to their own location (../../../data from
// src/integrations/address-lookup) sit at the same relative place under dist/.
cpSync(path.join(ROOT, 'data', 'address-lookup'), path.join(DIST, 'data', 'address-lookup'), { recursive: true });

// Bundled from the compiled workflows, i.e. exactly the code tsc emitted, with the workflow
// interceptors every bundle has; paths and modules come from the compiled
// worker/workflow-bundles.js, which the worker resolves them by.
const bundles = require(path.join(DIST, 'worker', 'workflow-bundles.js'));
const noop = () => undefined;
const { code } = await bundleWorkflowCode({
  workflowsPath: bundles.WORKFLOWS_PATH,
  workflowInterceptorModules: bundles.WORKFLOW_INTERCEPTOR_MODULES,
  logger: { trace: noop, debug: noop, info: noop, warn: console.warn, error: console.error, log: noop },
});
writeFileSync(bundles.PREBUILT_WORKFLOW_BUNDLE, code);
console.log(`dist/ built; workflow bundle ${(Buffer.byteLength(code) / 1024).toFixed(0)} KiB`);
