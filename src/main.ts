import { loadConfig } from './config';
import { connectAndMigrate } from './db/data-source';
import { createApp } from './http/app';
import type { Services } from './http/services';
import { createLogger, type Logger } from './logger';
import { createApiMetrics, registerDbPoolMetrics } from './observability/api-metrics';
import { startMetricsServer } from './observability/metrics-server';
import { connectTemporalClient } from './temporal/client';
import { createServices } from './composition';

/** API process entry point: migrate, connect, serve; drain and close on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel, 'api');
  const db = await connectAndMigrate({ url: config.databaseUrl, applicationName: 'marketplace-api' });
  const temporal = await connectTemporalClient(config.temporal);
  const services = createServices(config, db, temporal);
  const metrics = createApiMetrics();
  registerDbPoolMetrics(metrics.registry, db, 'api');
  const app = createApp(services, config, log, metrics);
  const metricsServer =
    config.metrics.apiPort === 0
      ? undefined
      : await startMetricsServer(metrics.registry, { host: config.metrics.host, port: config.metrics.apiPort });
  const reconcile = startReviewWindowReconciliation(services, config.reviews.reconcileSeconds, log);
  const server = app.listen(config.port, config.host, () => {
    log.info({ url: config.publicBaseUrl, docs: `${config.publicBaseUrl}/docs`, metrics: metricsServer?.url }, 'api listening');
  });
  const stop = () => {
    log.info('api stopping');
    clearInterval(reconcile);
    server.close(async () => {
      await metricsServer?.close();
      await temporal.connection.close();
      await db.destroy();
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/**
 * Review windows Temporal could not start when their purchase completed are started here, at
 * boot and then periodically. Every replica may run it: starts are idempotent by workflow id.
 */
function startReviewWindowReconciliation(services: Services, everySeconds: number, log: Logger): NodeJS.Timeout | undefined {
  if (everySeconds === 0) return undefined;
  const run = () =>
    services.reviewWindows.openPending().then(
      (opened) => opened > 0 && log.info({ opened }, 'review windows started by reconciliation'),
      (err) => log.warn({ err }, 'review window reconciliation failed'),
    );
  void run();
  return setInterval(run, everySeconds * 1000).unref();
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
