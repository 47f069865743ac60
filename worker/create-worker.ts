import path from 'node:path';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { DataSource } from 'typeorm';
import type { Config } from '../src/config';
import { createWorkerActivities } from './composition';

export const WORKFLOWS_PATH = path.resolve(__dirname, '../workflows/index.ts');

export interface CreateWorkerOptions {
  config: Config;
  db: DataSource;
  connection: NativeConnection;
  /** A pre-built bundle (tests build one per run); otherwise the worker bundles at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
}

/** The worker with every workflow and activity registered; shared by `worker/main.ts` and tests. */
export function createWorker({ config, db, connection, workflowBundle }: CreateWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    ...(workflowBundle ? { workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    activities: createWorkerActivities(config, db),
  });
}
