import path from 'node:path';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { DataSource } from 'typeorm';
import { createActivities } from '../activities';
import type { Config } from '../src/config';
import { createMailTransport } from '../src/integrations/email/transport';

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
  const activities = createActivities({
    db,
    transport: createMailTransport(config.email.smtpUrl),
    from: config.email.from,
    codeKey: config.auth.jwtSecret,
    codeTtlSeconds: config.emailChange.codeTtlSeconds,
    webhooks: config.webhooks,
    importBatchSize: config.imports.batchSize,
    reviewWindowSeconds: config.reviews.windowSeconds,
    orderTimings: {
      autoEscalateSeconds: config.cases.autoEscalateSeconds,
      autoReceiptSeconds: config.orders.autoReceiptSeconds,
      reviewWindowSeconds: config.reviews.windowSeconds,
    },
  });
  return Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    ...(workflowBundle ? { workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    activities,
  });
}
