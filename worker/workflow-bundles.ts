import path from 'node:path';

// Where the worker finds its workflow code; kept apart from create-worker.ts so that
// scripts/build.mjs can read it from dist/ without loading the application.

/** A folder, so it names workflows/index.ts from source and dist/workflows/index.js when compiled. */
export const WORKFLOWS_PATH = path.resolve(__dirname, '../workflows');
/** Written by `npm run build` (dist/workflow-bundle.js); absent when running from source. */
export const PREBUILT_WORKFLOW_BUNDLE = path.resolve(__dirname, '../workflow-bundle.js');
/**
 * Bundled with the workflows wherever they are bundled (the build, the worker from source,
 * tests, replay): the tracing interceptors, which act only in runs started with a trace, so every
 * worker runs the same workflow code whether tracing is on or off (docs/operations.md, "Tracing").
 */
export const WORKFLOW_INTERCEPTOR_MODULES = [path.resolve(__dirname, '../workflows/tracing-interceptors')];
