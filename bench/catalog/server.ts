// One benchmark target per process, against the benchmark database: the real API as deployed,
// the API with its Discover cache off, the bare baseline, or the floor (fixed bytes, no work). Separate processes keep one
// target's heap and JIT state from colouring another's figures. Started by run.ts (argument:
// the target); stops on SIGTERM.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { createServices } from '../../src/composition';
import { loadConfig } from '../../src/config';
import { createDataSource } from '../../src/db/data-source';
import { createApp } from '../../src/http/app';
import { createLogger } from '../../src/logger';
import { createBaselineApp } from './baseline';
import { BENCH, benchDatabaseUrl } from './settings';

const POOL_SIZE = 10;

/** What this process serves; run.ts starts one process per target. */
export type Target = 'api' | 'uncached' | 'baseline' | 'floor';

async function main(target: Target, floorBytes: number): Promise<void> {
  if (target === 'floor') {
    const body = Buffer.from(`[${' '.repeat(Math.max(0, floorBytes - 2))}]`);
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body)).listen(
      BENCH.floorPort,
      '127.0.0.1',
    );
    process.once('SIGTERM', () => server.close(() => process.exit(0)));
    return;
  }
  const url = benchDatabaseUrl();
  if (target === 'baseline') {
    const baseline = createBaselineApp(url, POOL_SIZE);
    const server = baseline.app.listen(BENCH.baselinePort, '127.0.0.1');
    process.once('SIGTERM', () => {
      server.close();
      void baseline.pool.end().then(() => process.exit(0));
    });
    return;
  }
  // Production settings: no per-response schema validation, quiet logs.
  const config = loadConfig({
    NODE_ENV: 'production',
    DATABASE_URL: url,
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-00',
    // Production requires payload keys; Discover never sends a payload, any key does.
    TEMPORAL_PAYLOAD_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    ...(target === 'uncached' ? { DISCOVER_CACHE_MS: '0' } : {}),
  });
  const db = createDataSource({ url, poolSize: POOL_SIZE, applicationName: `bench-${target}` });
  await db.initialize();
  // Discover routes never reach Temporal; a lazy connection to nowhere is enough.
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:9' }) });
  const app = createApp(createServices(config, db, temporal), config, createLogger('silent', 'bench'));
  const server = app.listen(target === 'api' ? BENCH.apiPort : BENCH.uncachedApiPort, '127.0.0.1');
  process.once('SIGTERM', () => {
    server.close();
    void db.destroy().then(() => process.exit(0));
  });
}

main(process.argv[2] as Target, Number(process.argv[3] ?? 0)).catch((err) => {
  console.error(err);
  process.exit(1);
});
