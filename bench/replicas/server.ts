// One API process of the replica benchmark (started by run.ts): `replica` reads through the read
// router with the pair's replica in DATABASE_REPLICA_URLS, `primary` is the same app with none.
// Arguments: side, port, cache mode (`cached`: Discover caches as deployed; `uncached`: every
// request reads the database). The URLs come from BENCH_PRIMARY_URL and BENCH_REPLICA_URL.
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { createServices } from '../../src/composition';
import { loadConfig } from '../../src/config';
import { createDataSource } from '../../src/db/data-source';
import { createApp } from '../../src/http/app';
import { createLogger } from '../../src/logger';

const POOL_SIZE = 10;

async function main(side: 'replica' | 'primary', port: number, mode: 'cached' | 'uncached'): Promise<void> {
  const url = process.env.BENCH_PRIMARY_URL!;
  const config = loadConfig({
    NODE_ENV: 'production',
    DATABASE_URL: url,
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-00',
    // Production requires payload keys; Discover never sends a payload, any key does.
    TEMPORAL_PAYLOAD_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    METRICS_PORT: '0',
    ...(side === 'replica' ? { DATABASE_REPLICA_URLS: process.env.BENCH_REPLICA_URL! } : {}),
    ...(mode === 'uncached' ? { DISCOVER_CACHE_MS: '0', SELLER_SEARCH_CACHE_MS: '0' } : {}),
  });
  const db = createDataSource({ url, poolSize: POOL_SIZE, applicationName: `bench-${side}` });
  await db.initialize();
  // Discover routes never reach Temporal; a lazy connection to nowhere is enough.
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:9' }) });
  const services = createServices(config, db, temporal);
  const server = createApp(services, config, createLogger('silent', 'bench')).listen(port, '127.0.0.1');
  process.once('SIGTERM', () => {
    server.close();
    void services
      .close()
      .then(() => db.destroy())
      .then(() => process.exit(0));
  });
}

main(process.argv[2] as 'replica' | 'primary', Number(process.argv[3]), process.argv[4] as 'cached' | 'uncached').catch((err) => {
  console.error(err);
  process.exit(1);
});
