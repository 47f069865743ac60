// A benchmark target in its own process (so load generation does not steal its CPU):
//   api      — the real app (route table, auth, validation, services, views), production settings;
//   baseline — a bare Koa app answering each route with ONE equivalent SQL statement through `pg`.
// Tells the parent it is listening through the IPC channel.
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import Koa from 'koa';
import { Pool } from 'pg';
import { createServices } from '../../src/composition';
import { loadConfig } from '../../src/config';
import { createDataSource } from '../../src/db/data-source';
import { createApp } from '../../src/http/app';
import { createLogger } from '../../src/logger';
import { BASELINE_INBOX_SQL, BASELINE_MESSAGES_SQL, BASELINE_UNREAD_SQL } from './baseline-sql';

const [mode, port, databaseUrl] = process.argv.slice(2) as ['api' | 'baseline', string, string];
const POOL_SIZE = 10;

async function apiApp(): Promise<Koa> {
  const config = loadConfig({
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
    LOG_LEVEL: 'silent',
    PORT: port,
    // Production requires payload keys; these routes never send a payload, any key does.
    TEMPORAL_PAYLOAD_KEYS: `bench:${randomBytes(32).toString('base64')}`,
  });
  const db = createDataSource({ url: databaseUrl, poolSize: POOL_SIZE });
  await db.initialize();
  // Reads start no workflow; a lazy client never connects.
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:9' }) });
  return createApp(createServices(config, db, temporal), config, createLogger('silent', 'bench'));
}

/** `/inbox/{userId}`, `/messages/{conversationId}`, `/unread/{userId}`: page 1 of 20, no auth, no validation. */
function baselineApp(): Koa {
  const pool = new Pool({ connectionString: databaseUrl, max: POOL_SIZE });
  const app = new Koa();
  app.use(async (ctx) => {
    const [, route, id] = ctx.path.split('/');
    const sql = route === 'inbox' ? BASELINE_INBOX_SQL : route === 'messages' ? BASELINE_MESSAGES_SQL : BASELINE_UNREAD_SQL;
    ctx.body = (await pool.query(sql, [id])).rows[0]!.body;
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
