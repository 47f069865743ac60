import { DefaultLogger, NativeConnection, Runtime, type LogLevel } from '@temporalio/worker';
import { loadConfig } from '../src/config';
import { connectAndMigrate } from '../src/db/data-source';
import { createLogger } from '../src/logger';
import { connectTemporalClient } from '../src/temporal/client';
import { createWorker } from './create-worker';
import { createStartDispatcher } from './start-dispatcher';

/**
 * Worker process entry point. SIGTERM/SIGINT make the SDK stop polling, let running activities
 * finish (up to its shutdown grace time) and then resolve `run()`, after which we close the
 * database pool and the connection.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel, 'worker');
  // The SDK's own logs go through pino too; below WARN they are bundler and state-change chatter.
  Runtime.install({
    logger: new DefaultLogger('WARN', ({ level, message, meta }) => {
      const method = ({ WARN: 'warn', ERROR: 'error' } as Partial<Record<LogLevel, 'warn' | 'error'>>)[level] ?? 'info';
      log[method]({ ...meta, sdk: true }, message);
    }),
  });
  const db = await connectAndMigrate({ url: config.databaseUrl, applicationName: 'marketplace-worker' });
  const connection = await NativeConnection.connect({
    address: config.temporal.address,
    tls: config.temporal.tls ? {} : undefined,
  });
  const worker = await createWorker({ config, db, connection });
  // The workflow-start dispatcher runs beside the worker (any number of replicas may).
  const temporal = await connectTemporalClient(config.temporal);
  const dispatcher = createStartDispatcher(config, db, temporal, log.child({ component: 'start-dispatcher' }));
  dispatcher.start();
  log.info({ taskQueue: config.temporal.taskQueue, temporal: config.temporal.address }, 'worker started');
  try {
    await worker.run();
  } finally {
    await dispatcher.stop();
    await temporal.connection.close();
    await connection.close();
    await db.destroy();
    log.info('worker stopped');
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
