// One benchmark target per process, against the benchmark database: the real API as deployed,
// the API with its Discover cache off, the bare baseline, or the floor (fixed bytes, no work). Separate processes keep one
// target's heap and JIT state from colouring another's figures. Started by run.ts (argument:
// the target); stops on SIGTERM.
import { createServer } from 'node:http';
import v8 from 'node:v8';
import { Client, Connection } from '@temporalio/client';
import { createServices } from '../../src/composition';
import { createDataSource } from '../../src/db/data-source';
import { createApp } from '../../src/http/app';
import { createLogger } from '../../src/logger';
import { trimYoungGenerationWhenIdle } from '../../src/http/young-generation-trim';
import { createBaselineApp } from './baseline';
import { BENCH, benchApiConfig, benchDatabaseUrl } from './settings';

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
  const config = benchApiConfig(target);
  const db = createDataSource({ url, poolSize: POOL_SIZE, applicationName: `bench-${target}` });
  await db.initialize();
  // Discover routes never reach Temporal; a lazy connection to nowhere is enough.
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:9' }) });
  const app = createApp(createServices(config, db, temporal), config, createLogger('silent', 'bench'));
  const server = app.listen(target === 'api' ? BENCH.apiPort : BENCH.uncachedApiPort, '127.0.0.1');
  // As src/main.ts does: given back once idle (a no-op unless the process runs with --expose-gc).
  trimYoungGenerationWhenIdle(server, globalThis.gc);
  process.once('SIGTERM', () => {
    server.close();
    void db.destroy().then(() => process.exit(0));
  });
  // What the RSS run.ts reads is made of, printed when it asks (SIGUSR2), for the results' reading.
  process.on('SIGUSR2', () => {
    const mib = (bytes: number) => Math.round(bytes / 1048576);
    const usage = Object.fromEntries(Object.entries(process.memoryUsage()).map(([k, v]) => [k, mib(v)]));
    const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, mib(s.physical_space_size)]));
    console.log(`memory of ${target} (MiB): ${JSON.stringify({ ...usage, heapSpacesPhysical: spaces })}`);
  });
}

main(process.argv[2] as Target, Number(process.argv[3] ?? 0)).catch((err) => {
  console.error(err);
  process.exit(1);
});
