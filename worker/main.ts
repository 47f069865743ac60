// First: tracing must be set up before anything loads the modules it instruments (pg).
import { tracing } from './tracing';
import { DefaultLogger, NativeConnection, Runtime, type LogLevel } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { loadConfig, type Config } from '../src/config';
import { connectAndMigrate } from '../src/db/data-source';
import { createLogger, type Logger } from '../src/logger';
import { startMetricsServer } from '../src/observability/metrics-server';
import { createWorkerMetrics, sdkMetrics } from '../src/observability/worker-metrics';
import { temporalClient } from '../src/temporal/client';
import { startCodecServer } from '../src/temporal/codec-server';
import { AesGcmPayloadCodec } from '../src/temporal/payload-codec';
import { ensureRetentionSchedule } from '../src/temporal/retention-schedule';
import { ensureModuleSchedules } from '../src/modules';
import { createModuleWorkers, createWorker } from './create-worker';
import { createStartDispatcher } from './start-dispatcher';

/**
 * Worker process entry point. SIGTERM/SIGINT make the SDK stop polling, let running activities
 * finish (up to SHUTDOWN_GRACE) and then resolve `run()`, after which the dispatcher finishes
 * its pass and the listeners, connections and pool close (docs/operations.md, "Shutdown").
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel, 'worker');
  // Until worker.run() there is nothing to drain, and the SDK's own signal handlers (installed by
  // Runtime.install) would let start-up carry on, retrying a Temporal that may be gone for good.
  const stopDuringStartUp = (signal: NodeJS.Signals) => {
    log.info({ signal }, 'worker stopped during start-up');
    process.exit(0);
  };
  process.once('SIGINT', stopDuringStartUp).once('SIGTERM', stopDuringStartUp);
  // The SDK's own logs go through pino too; below WARN they are bundler and state-change chatter.
  Runtime.install({
    logger: new DefaultLogger('WARN', ({ level, message, meta }) => {
      const method = ({ WARN: 'warn', ERROR: 'error' } as Partial<Record<LogLevel, 'warn' | 'error'>>)[level] ?? 'info';
      log[method]({ ...meta, sdk: true }, message);
    }),
    // The SDK's metrics, on loopback only: the worker's /metrics appends them to its own.
    ...(config.metrics.workerPort === 0
      ? {}
      : { telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${config.metrics.sdkPort}` } } } }),
  });
  const db = await connectAndMigrate({ url: config.databaseUrl, applicationName: 'marketplace-worker' });
  const connection = await NativeConnection.connect({
    address: config.temporal.address,
    tls: config.temporal.tls ? {} : undefined,
  });
  const metrics = createWorkerMetrics(db);
  const worker = await createWorker({ config, db, connection, metrics, tracing });
  const moduleWorkers = await createModuleWorkers({ config, db, connection });
  // The workflow-start dispatcher runs beside the worker (any number of replicas may), on the
  // worker's connection: without a backlog its starts hand their first task straight to this worker (eager start).
  const temporal = temporalClient(connection, config.temporal, tracing.clientInterceptors);
  const dispatcher = createStartDispatcher(config, db, temporal, log.child({ component: 'start-dispatcher' }), metrics);
  dispatcher.start();
  keepSchedules(temporal, config, log);
  const metricsServer =
    config.metrics.workerPort === 0
      ? undefined
      : await startMetricsServer(metrics.registry, { host: config.metrics.host, port: config.metrics.workerPort }, [
          sdkMetrics(config.metrics.sdkPort),
        ]);
  const codec = config.temporal.codec;
  const codecServer = codec.port === 0 ? undefined : await startCodecServer(new AesGcmPayloadCodec(config.temporal.payloadKeys), codec);
  log.info(
    {
      taskQueue: config.temporal.taskQueue,
      moduleTaskQueues: [...worker.others, ...moduleWorkers].map((w) => w.options.taskQueue),
      temporal: config.temporal.address,
      metrics: metricsServer?.url,
      codec: codecServer?.url,
      tracing: config.tracing.exporter,
    },
    'worker started',
  );
  process.off('SIGINT', stopDuringStartUp).off('SIGTERM', stopDuringStartUp);
  try {
    // The SDK stops every Worker of the process on SIGTERM/SIGINT.
    await Promise.all([worker.run(), ...moduleWorkers.map((w) => w.run())]);
  } finally {
    await dispatcher.stop();
    await codecServer?.close();
    await metricsServer?.close();
    await connection.close();
    await db.destroy();
    await tracing.shutdown();
    log.info('worker stopped');
  }
}

/**
 * Creates or updates the Schedules that follow this configuration: the outbox retention (which
 * belongs to no feature) and those the feature modules declare (checkout expiry, upload
 * collector, payout run, money reconciler, price guide rollup…); while Temporal cannot be reached
 * it tries again every 30 s instead of holding up the worker (outbox rows and run-out holds lose
 * nothing by waiting: a later sweep takes them all).
 */
function keepSchedules(temporal: Client, config: Config, log: Logger): void {
  const attempt = () =>
    Promise.all([
      ensureRetentionSchedule(temporal, {
        taskQueue: config.temporal.taskQueue,
        everyMs: config.retention.everyMs,
        olderThanMs: config.retention.olderThanMs,
      }),
      ensureModuleSchedules({ config, temporal }),
    ]).catch((err: unknown) => {
      log.warn({ err }, 'schedules not set up yet; retrying in 30 s');
      setTimeout(attempt, 30_000).unref();
    });
  void attempt();
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
