import type { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { DataSource } from 'typeorm';
import type { Config } from '../src/config';
import type { Logger } from '../src/logger';
import { moduleStartFeeders, workflowTaskQueues } from '../src/modules';
import { webhookDeliveryStart } from '../src/modules/webhooks';
import type { WorkerMetrics } from '../src/observability/worker-metrics';
import { deliveryPolicy, webhookFanOut } from '../src/services/webhooks/fan-out';
import { StartDispatcher } from '../src/services/workflow-starts/dispatcher';
import { TemporalStartExecutor } from '../src/temporal/start-executor';

/**
 * The workflow-start dispatcher as the worker runs it, with the webhook fan-out and the modules'
 * feeders (the alerts matcher) feeding it. On a
 * client over the worker's NativeConnection (worker/main.ts) its starts are eager while the outbox
 * has no backlog (see `StartExecutor`).
 */
export function createStartDispatcher(
  config: Config,
  db: DataSource,
  temporal: Client,
  log: Logger,
  metrics?: WorkerMetrics,
): StartDispatcher {
  return new StartDispatcher({
    db,
    databaseUrl: config.databaseUrl,
    executor: new TemporalStartExecutor(
      temporal,
      config.temporal.taskQueue,
      temporal.connection instanceof NativeConnection,
      workflowTaskQueues(config),
    ),
    // One pass fans out and starts up to this many: an event committed during a pass waits for it.
    feeders: [
      webhookFanOut(db, deliveryPolicy(config.webhooks), webhookDeliveryStart, config.starts.batchSize),
      // A module's feeder failing (its table, its bug) must not stop the webhook fan-out or the starts.
      ...moduleStartFeeders({ config, db }).map(({ module, feed }) => async () => {
        try {
          return await feed();
        } catch (err) {
          log.warn({ err, module }, 'a module start feeder failed; its rows stay for the next pass');
          return 0;
        }
      }),
    ],
    batchSize: config.starts.batchSize,
    channels: ['outbox_events'],
    intervalMs: config.starts.intervalMs,
    retryMaxMs: config.starts.retryMaxMs,
    log,
    ...(metrics
      ? {
          onStartSettled: (type, result) => {
            metrics.workflowStarts.inc({ workflow_type: type, result: result === 'eager' ? 'started' : result });
            if (result === 'eager') metrics.eagerStarts.inc({ workflow_type: type });
          },
        }
      : {}),
  });
}
