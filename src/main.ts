// First: tracing must be set up before anything loads the modules it instruments (pg).
import { tracing } from './api-tracing';
import { loadConfig } from './config';
import { connectAndMigrate } from './db/data-source';
import { createApp } from './http/app';
import { createApiServer } from './http/server';
import { trimYoungGenerationWhenIdle } from './http/young-generation-trim';
import { createLogger } from './logger';
import { createApiMetrics, registerDbPoolMetrics, registerReplicaMetrics } from './observability/api-metrics';
import { closeGracefully } from './observability/http-shutdown';
import { startMetricsServer } from './observability/metrics-server';
import { connectTemporalClient } from './temporal/client';
import { createServices } from './composition';

/** API process entry point: migrate, connect, serve; drain and close on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel, 'api');
  const db = await connectAndMigrate({ url: config.databaseUrl, applicationName: 'marketplace-api' });
  const temporal = await connectTemporalClient(config.temporal, tracing.clientInterceptors);
  const services = createServices(config, db, temporal);
  const metrics = createApiMetrics();
  registerDbPoolMetrics(metrics.registry, db, 'api');
  registerReplicaMetrics(metrics.registry, services.readRouter);
  const app = createApp(services, config, log, metrics, { tracing: tracing.enabled });
  const metricsServer =
    config.metrics.apiPort === 0
      ? undefined
      : await startMetricsServer(metrics.registry, { host: config.metrics.host, port: config.metrics.apiPort });
  const server = createApiServer(app.callback()).listen(config.port, config.host, () => {
    log.info(
      { url: config.publicBaseUrl, docs: `${config.publicBaseUrl}/docs`, metrics: metricsServer?.url, tracing: config.tracing.exporter },
      'api listening',
    );
  });
  const stopTrimming = trimYoungGenerationWhenIdle(server, globalThis.gc);
  // Requests in flight finish (up to SHUTDOWN_GRACE) before the pool and connections close.
  const stop = async () => {
    log.info('api stopping');
    stopTrimming();
    const { forced } = await closeGracefully(server, config.shutdownGraceMs);
    if (forced) log.warn({ graceMs: config.shutdownGraceMs }, 'requests still running at the end of the grace period were cut off');
    await metricsServer?.close();
    await temporal.connection.close();
    await services.close();
    await db.destroy();
    await tracing.shutdown();
    log.info('api stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
