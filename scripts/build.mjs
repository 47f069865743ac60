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

// Bundled from the compiled workflows, i.e. exactly the code tsc emitted; the paths are the ones
// worker/create-worker.ts resolves from dist/worker/ (WORKFLOWS_PATH, PREBUILT_WORKFLOW_BUNDLE).
const noop = () => undefined;
const { code } = await bundleWorkflowCode({
  workflowsPath: path.join(DIST, 'workflows'),
  logger: { trace: noop, debug: noop, info: noop, warn: console.warn, error: console.error, log: noop },
});
writeFileSync(path.join(DIST, 'workflow-bundle.js'), code);
console.log(`dist/ built; workflow bundle ${(Buffer.byteLength(code) / 1024).toFixed(0)} KiB`);
