import path from 'node:path';

// Where the worker finds its workflow code; kept apart from create-worker.ts so that
// scripts/build.mjs can read it from dist/ without loading the application.

/** A folder, so it names workflows/index.ts from source and dist/workflows/index.js when compiled. */
export const WORKFLOWS_PATH = path.resolve(__dirname, '../workflows');
/** Written by `npm run build` (dist/workflow-bundle.js); absent when running from source. */
export const PREBUILT_WORKFLOW_BUNDLE = path.resolve(__dirname, '../workflow-bundle.js');
/** The same workflows with the tracing interceptors, loaded instead when tracing is on. */
export const PREBUILT_TRACED_WORKFLOW_BUNDLE = path.resolve(__dirname, '../workflow-bundle-traced.js');
/**
 * The workflow interceptors the traced bundle adds: spans for workflow runs, signals, Updates
 * and activity schedules, which continue the trace in the start's or Update's headers and pass
 * it on to activities. Bundled in only when tracing is on, so the untraced worker runs exactly
 * the workflow code it ran before tracing existed (docs/operations.md, "Tracing").
 */
export const TRACING_WORKFLOW_INTERCEPTOR_MODULES = [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')];
