// Times a 10,000-row CSV listing import end to end: HTTP upload → Temporal dev server →
// worker (batches of IMPORT_BATCH_SIZE, default 500) → Postgres, until the import is COMPLETED.
// `node -r ts-node/register bench/seller-listings/import.ts`. Uses its own database
// (mts_bench_import on the local PostgreSQL), dropped at the end. Each run appends a row to
// bench/results/seller-listings-import.md.
import { appendFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { adminQuery } from '../support';
import { connectAndMigrate } from '../../src/db/data-source';
import { createLogger } from '../../src/logger';
import { createWorker } from '../../worker/create-worker';
import { createStartDispatcher } from '../../worker/start-dispatcher';
import { registerSeller, startTestApi } from '../../test/support/api';
import { ADMIN_DATABASE_URL, databaseUrl } from '../../test/support/env';
import { seedCatalog } from '../../test/support/fixtures';
import { devServerEnv, workflowBundle } from '../../test/support/temporal';

const ROWS = 10_000;
const NAME = 'mts_bench_import';
const RESULTS = path.join(__dirname, '..', 'results', 'seller-listings-import.md');

const admin = (sql: string) => adminQuery(ADMIN_DATABASE_URL, sql);

async function main(): Promise<void> {
  await admin(`DROP DATABASE IF EXISTS ${NAME} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${NAME}`);
  const url = databaseUrl(NAME);
  const db = await connectAndMigrate({ url, poolSize: 10 });
  const env = await devServerEnv();
  const api = await startTestApi({ temporal: env.client, database: { url, db, drop: async () => undefined } });
  const worker = await createWorker({ config: api.config, db, connection: env.nativeConnection, workflowBundle: await workflowBundle() });
  const running = worker.run();
  // The import workflow starts through the start outbox, as the worker process runs it.
  const dispatcher = createStartDispatcher(api.config, db, env.client, createLogger('silent', 'start-dispatcher'));
  dispatcher.start();
  try {
    const { items } = await seedCatalog(db, { names: Array.from({ length: 100 }, (_, i) => `Card ${i}`) });
    const seller = await registerSeller(api);
    const csv = [
      'urn,condition,language,price,quantity,reference',
      ...Array.from({ length: ROWS }, (_, i) => `${items[i % items.length]!.urn},NEAR_MINT,en,${100 + i},${1 + (i % 5)},ref-${i}`),
    ].join('\n');
    const started = Date.now();
    const accepted = await api.http.post('/seller/imports').set(seller.bearer).set('Content-Type', 'text/csv').send(csv).expect(202);
    for (;;) {
      const res = await api.http.get(`/seller/imports/${accepted.body.id}`).set(seller.bearer).expect(200);
      if (res.body.status === 'COMPLETED' || res.body.status === 'FAILED') {
        const ms = Date.now() - started;
        const rowsPerSecond = Math.round((ROWS * 1000) / ms);
        console.log(JSON.stringify({ rows: ROWS, batchSize: api.config.imports.batchSize, ms, rowsPerSecond, import: res.body }));
        if (res.body.status === 'COMPLETED') {
          const at = new Date().toISOString().slice(0, 16).replace('T', ' ');
          appendFileSync(
            RESULTS,
            `| ${at} UTC | ≈ ${loadavg()[0]!.toFixed(1)} | ${(ms / 1000).toFixed(1)} s | ${rowsPerSecond.toLocaleString('en-GB')} |\n`,
          );
        }
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await dispatcher.stop();
    worker.shutdown();
    await running;
    await api.close();
    await db.destroy();
    await env.teardown();
    await admin(`DROP DATABASE IF EXISTS ${NAME} WITH (FORCE)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
