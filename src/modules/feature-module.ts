import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Config } from '../config';
import type { ReadRouter } from '../db/read-router';
import type { AnyRoute } from '../http/route';
import type { SharedServices } from '../http/services';
import type { StartFeeder } from '../services/workflow-starts/dispatcher';
import type * as workflows from '../../workflows';

/** What a feature's API part is built from: configuration, the database, Temporal and the shared services. */
export interface ApiModuleContext {
  config: Config;
  db: DataSource;
  /** Reads that may go to a replica (docs/replicas.md): the primary when there is none. */
  reads: ReadRouter;
  temporal: Client;
  /** Shared services with one owner each (ledger, stock, basket…) that several features call. */
  shared: SharedServices;
}

/** What a feature's worker part is built from. */
export interface WorkerModuleContext {
  config: Config;
  db: DataSource;
}

/** What a feature's Schedules are kept with. */
export interface ScheduleModuleContext {
  config: Config;
  temporal: Client;
}

/** Activities as the worker registers them. */
export type ActivityFunctions = Record<string, (...args: never[]) => Promise<unknown>>;

/**
 * Activities served on a task queue of their own, by a Worker of their own (CPU-bound work that
 * must scale apart from the rest, e.g. the basket optimizer): a deployment can run more of them.
 */
export interface ModuleTaskQueue {
  taskQueue: string;
  activities: ActivityFunctions;
  /** How many of its activities one worker process runs at once. */
  maxConcurrentActivities: number;
}

/**
 * Workflows started on a task queue of their own, served by a Worker of their own with the main
 * one's workflow code and activities but slots of its own. For workflows whose activities are
 * local: a local activity holds its workflow task slot until it ends, so slow ones (a webhook
 * POST to a slow receiver) must not take the slots every other workflow needs.
 */
export interface ModuleWorkflowQueue {
  taskQueue: string;
  /** The workflow types whose starts go to this queue (`TemporalStartExecutor`). */
  workflowTypes: Array<keyof typeof workflows>;
  /** Workflow tasks, and local activities, one worker process runs at once on this queue. */
  concurrency: number;
}

/**
 * One feature, declared in one file (docs/architecture.md, "Feature modules"): the services and
 * routes it adds to the API, the activities, task queues and Schedules it adds to the worker. Its workflow
 * functions are exported from `workflows/index.ts` (the workflow bundle is built from there); the
 * module file declares their ids and builds their starts with `start` (./workflow-start.ts, typed
 * by the workflow functions), handed to the services that request them as small ports.
 *
 * Routes receive the module's own services (with the shared ones they call among them); the
 * OpenAPI export builds the route table without any, so a route may only touch its services
 * when it is called.
 */
export interface FeatureModule<S extends object> {
  readonly name: string;
  /**
   * The OpenAPI tags the module's routes use, with their descriptions (shown in /openapi.json
   * and the docs page): a new route group names its tag here, not in a list of its own.
   */
  readonly tags?: Readonly<Record<string, string>>;
  api?: {
    services(context: ApiModuleContext): S;
    routes(services: S, config: Config): AnyRoute[];
  };
  worker?: {
    /** Served on the main task queue with every other activity. */
    activities?(context: WorkerModuleContext): ActivityFunctions;
    taskQueues?(context: WorkerModuleContext): ModuleTaskQueue[];
    /** Pure configuration: the start dispatcher reads it too, to send each start to its queue. */
    workflowQueues?(config: Config): ModuleWorkflowQueue[];
    /**
     * Background readers of the outboxes, run by the worker's start dispatcher before each pass
     * beside the webhook fan-out (the alerts matcher reads listing events); each may request
     * workflow starts in its own transaction. A feeder that fails is logged and skipped for the
     * pass, so it never holds up the others.
     */
    startFeeders?(context: WorkerModuleContext): StartFeeder[];
    /**
     * Creates or updates the feature's Temporal Schedules to follow the configuration (with
     * `upsertSchedule`, as for every Schedule). Every worker process calls it at start, from
     * `keepSchedules` (worker/main.ts), which retries every 30 s while Temporal is unreachable.
     */
    schedules?(context: ScheduleModuleContext): Promise<void>;
  };
}
