// The benchmark's server process: the real API and the baseline side by side, on two ports,
// against the benchmark database. Started by run.ts; stops on SIGTERM.
import { Client, Connection } from '@temporalio/client';
import { createServices } from '../../src/composition';
import { loadConfig } from '../../src/config';
import { createDataSource } from '../../src/db/data-source';
import { createApp } from '../../src/http/app';
import { createLogger } from '../../src/logger';
import { createBaselineApp } from './baseline';
import { BENCH, benchDatabaseUrl } from './settings';

const POOL_SIZE = 10;

async function main(): Promise<void> {
  const url = benchDatabaseUrl();
  // Production settings: no per-response schema validation, quiet logs.
  const config = loadConfig({ NODE_ENV: 'production', DATABASE_URL: url, LOG_LEVEL: 'silent', JWT_SECRET: 'bench-secret-bench-secret-bench-secret-00' });
  const db = createDataSource({ url, poolSize: POOL_SIZE, applicationName: 'bench-api' });
  await db.initialize();
  // Discover routes never reach Temporal; a lazy connection to nowhere is enough.
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:9' }) });
  const api = createApp(createServices(config, db, temporal), config, createLogger('silent', 'bench')).listen(BENCH.apiPort, '127.0.0.1');
  const baseline = createBaselineApp(url, POOL_SIZE);
  const bare = baseline.app.listen(BENCH.baselinePort, '127.0.0.1');
  process.once('SIGTERM', () => {
    api.close();
    bare.close();
    void Promise.all([db.destroy(), baseline.pool.end()]).then(() => process.exit(0));
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
