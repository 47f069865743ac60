import { loadTracingConfig } from './config';
import { startTracing } from './observability/tracing';

/**
 * The API process's tracing, started when this module loads. src/main.ts imports it first:
 * the pg instrumentation patches `pg` as Node's `require` loads it, so tracing has to be set up
 * before any module that loads `pg` (docs/operations.md, "Tracing").
 */
export const tracing = startTracing(loadTracingConfig(), { serviceName: 'marketplace-api' });
