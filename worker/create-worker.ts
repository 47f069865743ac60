import { existsSync } from 'node:fs';
import path from 'node:path';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { DataSource } from 'typeorm';
import type { Config } from '../src/config';
import type { WorkerMetrics } from '../src/observability/worker-metrics';
import { temporalDataConverter } from '../src/temporal/data-converter';
import { createWorkerActivities } from './composition';

/** A folder, so it names workflows/index.ts from source and dist/workflows/index.js when compiled. */
export const WORKFLOWS_PATH = path.resolve(__dirname, '../workflows');
/** Written by `npm run build` (dist/workflow-bundle.js); absent when running from source. */
export const PREBUILT_WORKFLOW_BUNDLE = path.resolve(__dirname, '../workflow-bundle.js');

export interface CreateWorkerOptions {
  config: Config;
  db: DataSource;
  connection: NativeConnection;
  /** A bundle built by the caller (tests build one per file); otherwise the prebuilt one, else bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Instruments the worker's activities report to (worker/main.ts serves them on /metrics). */
  metrics?: WorkerMetrics;
}

/** The worker with every workflow and activity registered; shared by `worker/main.ts` and tests. */
export function createWorker({ config, db, connection, workflowBundle, metrics }: CreateWorkerOptions): Promise<Worker> {
  const activities = createWorkerActivities(config, db);
  return Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    ...workflowCode(workflowBundle),
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

/** Production loads the bundle prebuilt by `npm run build`; from source the worker bundles at start. */
function workflowCode(given: WorkerOptions['workflowBundle']): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> {
  if (given) return { workflowBundle: given };
  if (existsSync(PREBUILT_WORKFLOW_BUNDLE)) return { workflowBundle: { codePath: PREBUILT_WORKFLOW_BUNDLE } };
  return { workflowsPath: WORKFLOWS_PATH };
}
