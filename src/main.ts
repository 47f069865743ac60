import { loadConfig } from './config';
import { connectAndMigrate } from './db/data-source';
import { createApp } from './http/app';
import { createLogger } from './logger';
import { connectTemporalClient } from './temporal/client';
import { createServices } from './composition';

/** API process entry point: migrate, connect, serve; drain and close on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel, 'api');
  const db = await connectAndMigrate({ url: config.databaseUrl, applicationName: 'marketplace-api' });
  const temporal = await connectTemporalClient(config.temporal);
  const services = createServices(config, db, temporal);
  const app = createApp(services, config, log);
  const server = app.listen(config.port, config.host, () => {
    log.info({ url: config.publicBaseUrl, docs: `${config.publicBaseUrl}/docs` }, 'api listening');
  });
  const stop = () => {
    log.info('api stopping');
    server.close(async () => {
      await temporal.connection.close();
      await db.destroy();
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
