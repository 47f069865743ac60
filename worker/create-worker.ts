import { existsSync } from 'node:fs';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { DataSource } from 'typeorm';
import type { Config } from '../src/config';
import type { Tracing } from '../src/observability/tracing';
import type { WorkerMetrics } from '../src/observability/worker-metrics';
import { temporalDataConverter } from '../src/temporal/data-converter';
import { createWorkerActivities } from './composition';
import {
  PREBUILT_TRACED_WORKFLOW_BUNDLE,
  PREBUILT_WORKFLOW_BUNDLE,
  TRACING_WORKFLOW_INTERCEPTOR_MODULES,
  WORKFLOWS_PATH,
} from './workflow-bundles';

export interface CreateWorkerOptions {
  config: Config;
  db: DataSource;
  connection: NativeConnection;
  /** A bundle built by the caller (tests build one per file); otherwise the prebuilt one, else bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Instruments the worker's activities report to (worker/main.ts serves them on /metrics). */
  metrics?: WorkerMetrics;
  /** When on: activity spans, workflow spans through the sink, and the traced workflow bundle. */
  tracing?: Tracing;
}

/** The worker with every workflow and activity registered; shared by `worker/main.ts` and tests. */
export function createWorker({ config, db, connection, workflowBundle, metrics, tracing }: CreateWorkerOptions): Promise<Worker> {
  const activities = createWorkerActivities(config, db);
  return Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    ...workflowCode(workflowBundle, tracing),
    activities: metrics ? countedActivities(activities, metrics) : activities,
    dataConverter: temporalDataConverter(config.temporal),
    // On SIGTERM running activities finish within the grace period instead of being cancelled.
    shutdownGraceTime: config.shutdownGraceMs,
  });
}

/** Counts each webhook attempt by what it decided (`webhook_delivery_attempts_total`). */
function countedActivities<A extends { attemptWebhookDelivery: (...args: never[]) => Promise<{ outcome: string }> }>(
  activities: A,
  metrics: WorkerMetrics,
): A {
  const attempt = activities.attemptWebhookDelivery;
  return {
    ...activities,
    attemptWebhookDelivery: async (...args: Parameters<A['attemptWebhookDelivery']>) => {
      const result = await attempt(...args);
      metrics.webhookAttempts.inc({ outcome: result.outcome });
      return result;
    },
  };
}

/**
 * Production loads the bundle prebuilt by `npm run build` (the traced one when tracing is on);
 * from source the worker bundles at start, adding the tracing interceptors when it is on. A
 * bundle given by the caller must match (test/support/temporal.ts builds both kinds).
 */
function workflowCode(
  given: WorkerOptions['workflowBundle'],
  tracing: Tracing | undefined,
): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath' | 'interceptors' | 'sinks'> {
  const traced = tracing?.worker;
  const extra = traced ? { interceptors: traced.interceptors, sinks: traced.sinks } : {};
  if (given) return { workflowBundle: given, ...extra };
  const prebuilt = traced ? PREBUILT_TRACED_WORKFLOW_BUNDLE : PREBUILT_WORKFLOW_BUNDLE;
  if (existsSync(prebuilt)) return { workflowBundle: { codePath: prebuilt }, ...extra };
  if (!traced) return { workflowsPath: WORKFLOWS_PATH };
  return {
    workflowsPath: WORKFLOWS_PATH,
    interceptors: { ...traced.interceptors, workflowModules: TRACING_WORKFLOW_INTERCEPTOR_MODULES },
    sinks: traced.sinks,
  };
}
