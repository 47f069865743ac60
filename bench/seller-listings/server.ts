// A benchmark target in its own process (so load generation does not steal its CPU):
//   api      — the real app (route table, auth, validation, services, views), production settings,
//              with the search cache TTL given (0: every request counts facets and reads the page in SQL);
//   baseline — a bare Koa app answering with ONE equivalent SQL statement through `pg`.
// Prints nothing; tells the parent it is listening through the IPC channel.
import { Client, Connection } from '@temporalio/client';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { Pool } from 'pg';
import { createServices } from '../../src/composition';
import { loadConfig } from '../../src/config';
import { createDataSource } from '../../src/db/data-source';
import { createApp } from '../../src/http/app';
import { createLogger } from '../../src/logger';
import { baselineSql } from './baseline-sql';

const [mode, port, databaseUrl, cacheMs = '0'] = process.argv.slice(2) as ['api' | 'baseline', string, string, string?];
const POOL_SIZE = 10;

async function apiApp(): Promise<Koa> {
  const config = loadConfig({
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
    LOG_LEVEL: 'silent',
    PORT: port,
    SELLER_SEARCH_CACHE_MS: cacheMs,
  });
  const db = createDataSource({ url: databaseUrl, poolSize: POOL_SIZE });
  await db.initialize();
  // The search route needs no workflow; a lazy client never connects.
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:9' }) });
  return createApp(createServices(config, db, temporal), config, createLogger('silent', 'bench'));
}

function baselineApp(): Koa {
  // The same work_mem the service sets for its facet query, so both plans hash every grouping set.
  const pool = new Pool({ connectionString: databaseUrl, max: POOL_SIZE, options: '-c work_mem=32MB' });
  const app = new Koa();
  app.use(koaBody());
  app.use(async (ctx) => {
    const { sellerId, ...request } = ctx.request.body as { sellerId: string; query?: string; facets?: Record<string, string[]> };
    const { sql, params } = baselineSql(sellerId, request);
    ctx.body = (await pool.query(sql, params)).rows[0];
  });
  return app;
}

(async () => {
  const app = mode === 'api' ? await apiApp() : baselineApp();
  app.listen(Number(port), '127.0.0.1', () => process.send?.('ready'));
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
