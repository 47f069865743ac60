import { existsSync } from 'node:fs';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { DataSource } from 'typeorm';
import type { Config } from '../src/config';
import { DROP_WORKFLOW_SPANS, type Tracing } from '../src/observability/tracing';
import type { WorkerMetrics } from '../src/observability/worker-metrics';
import { temporalDataConverter } from '../src/temporal/data-converter';
import { classifyFailures } from '../activities/failures';
import type { WebhookActivities } from '../activities/webhooks';
import { moduleTaskQueues, moduleWorkflowQueues } from '../src/modules';
import type { ActivityFunctions } from '../src/modules/feature-module';
import { createWorkerActivities } from './composition';
import { WorkerGroup } from './worker-group';
import { PREBUILT_WORKFLOW_BUNDLE, WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from './workflow-bundles';

export interface CreateWorkerOptions {
  config: Config;
  db: DataSource;
  connection: NativeConnection;
  /** A bundle built by the caller (tests build one per file); otherwise the prebuilt one, else bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Instruments the worker's activities report to (worker/main.ts serves them on /metrics). */
  metrics?: WorkerMetrics;
  /** When on: activity spans, and workflow spans exported through the worker's sink. */
  tracing?: Tracing;
}

/**
 * The Workers that run workflows: one on the main task queue, and one on each queue a module
 * keeps for workflows of its own (`ModuleWorkflowQueue`: webhook deliveries), each with every
 * workflow and activity registered, so a workflow started before its type moved queues still
 * runs where it began. Shared by `worker/main.ts` and tests.
 */
export async function createWorker({
  config,
  db,
  connection,
  workflowBundle,
  metrics,
  tracing,
}: CreateWorkerOptions): Promise<WorkerGroup> {
  const activities = createWorkerActivities(config, db);
  const code = workflowCode(workflowBundle);
  const common: Omit<WorkerOptions, 'taskQueue'> = {
    connection,
    namespace: config.temporal.namespace,
    ...code,
    interceptors: { ...tracing?.worker?.interceptors, ...(code.workflowsPath ? { workflowModules: WORKFLOW_INTERCEPTOR_MODULES } : {}) },
    // Always there: a run started with a trace keeps making workflow spans after tracing is
    // turned off (they are dropped then), and a missing sink is logged as an error.
    sinks: tracing?.worker?.sinks ?? DROP_WORKFLOW_SPANS,
    activities: metrics ? countedActivities(activities, metrics) : activities,
    dataConverter: temporalDataConverter(config.temporal),
    // On SIGTERM running activities finish within the grace period instead of being cancelled.
    shutdownGraceTime: config.shutdownGraceMs,
    maxConcurrentActivityTaskExecutions: config.temporal.maxConcurrentActivities,
  };
  const main = await Worker.create({
    ...common,
    taskQueue: config.temporal.taskQueue,
    // The SDK's default follows the heap limit (about 2,300 workflows at ~1 MB each on a 4 GB
    // heap), while most of ours wait days on a timer: kept, they only hold memory.
    maxCachedWorkflows: config.temporal.maxCachedWorkflows,
    ...(config.temporal.maxCachedWorkflows > 0
      ? { maxConcurrentWorkflowTaskExecutions: Math.min(40, config.temporal.maxCachedWorkflows) }
      : {}),
  });
  const own = await Promise.all(
    moduleWorkflowQueues(config).map((queue) =>
      Worker.create({
        ...common,
        taskQueue: queue.taskQueue,
        // A workflow stays cached while its local activity runs, so every slot needs a place.
        maxCachedWorkflows: queue.concurrency,
        maxConcurrentWorkflowTaskExecutions: queue.concurrency,
        maxConcurrentLocalActivityExecutions: queue.concurrency,
      }),
    ),
  );
  return new WorkerGroup(main, own);
}

/**
 * One Worker per task queue a feature module serves apart from the main one (activities only:
 * their workflows run on the main queue and schedule these activities onto their own queue).
 */
export function createModuleWorkers({
  config,
  db,
  connection,
}: Pick<CreateWorkerOptions, 'config' | 'db' | 'connection'>): Promise<Worker[]> {
  return Promise.all(
    moduleTaskQueues({ config, db }).map((queue) =>
      Worker.create({
        connection,
        namespace: config.temporal.namespace,
        taskQueue: queue.taskQueue,
        activities: classifyFailures(queue.activities),
        dataConverter: temporalDataConverter(config.temporal),
        shutdownGraceTime: config.shutdownGraceMs,
        maxConcurrentActivityTaskExecutions: queue.maxConcurrentActivities,
      }),
    ),
  );
}

/**
 * Counts each webhook attempt by what it decided (`webhook_delivery_attempts_total`): the
 * activity the webhooks module registers (src/modules/webhooks.ts), found by its name.
 */
function countedActivities(activities: ActivityFunctions, metrics: WorkerMetrics): ActivityFunctions {
  const attempt = activities.attemptWebhookDelivery as WebhookActivities['attemptWebhookDelivery'] | undefined;
  if (!attempt) return activities;
  const counted: WebhookActivities['attemptWebhookDelivery'] = async (input) => {
    const result = await attempt(input);
    metrics.webhookAttempts.inc({ outcome: result.outcome });
    return result;
  };
  return { ...activities, attemptWebhookDelivery: counted };
}

/**
 * Production loads the bundle prebuilt by `npm run build`; from source the worker bundles at
 * start, with the workflow interceptors every bundle has (worker/workflow-bundles.ts).
 */
function workflowCode(given: WorkerOptions['workflowBundle']): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> {
  if (given) return { workflowBundle: given };
  if (existsSync(PREBUILT_WORKFLOW_BUNDLE)) return { workflowBundle: { codePath: PREBUILT_WORKFLOW_BUNDLE } };
  return { workflowsPath: WORKFLOWS_PATH };
}
