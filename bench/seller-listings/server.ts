// A benchmark target in its own process (so load generation does not steal its CPU), run compiled:
//   api      — the real app (route table, auth, validation, services, views), production settings,
//              with the search cache TTL given (SELLER_SEARCH_CACHE_MS);
//   api2     — two such processes sharing the port (node:cluster hands each connection to one of
//              them in turn): what a second replica adds on this machine, each with caches of its own;
//   baseline — a bare Koa app answering with ONE equivalent SQL statement through `pg`;
//   floor    — a bare node:http server answering the given number of fixed bytes, no work.
// Prints nothing; tells the parent it is listening through the IPC channel (with the pids that
// serve, for their memory).
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { Client, Connection } from '@temporalio/client';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { Pool } from 'pg';
import { createServices } from '../../src/composition';
import { loadConfig } from '../../src/config';
import { createDataSource } from '../../src/db/data-source';
import { createApp } from '../../src/http/app';
import { createLogger } from '../../src/logger';
import { baselineSql, type BaselineRequest } from './baseline-sql';

const [mode, port, databaseUrl, arg = ''] = process.argv.slice(2) as ['api' | 'api2' | 'baseline' | 'floor', string, string, string?];
const POOL_SIZE = 10;
const API2_PROCESSES = 2;

async function apiApp(): Promise<Koa> {
  const config = loadConfig({
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
    LOG_LEVEL: 'silent',
    PORT: port,
    // Every API target answers as one service (one token issuer), as instances behind a balancer do.
    PUBLIC_BASE_URL: 'http://bench.invalid',
    SELLER_SEARCH_CACHE_MS: arg,
    // Production requires payload keys; these routes never send a payload, any key does.
    TEMPORAL_PAYLOAD_KEYS: `bench:${randomBytes(32).toString('base64')}`,
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
    const { sellerId, ...request } = ctx.request.body as unknown as { sellerId: string } & BaselineRequest;
    const { sql, params } = baselineSql(sellerId, request);
    ctx.body = (await pool.query(sql, params)).rows[0];
  });
  return app;
}

function floorServer(bytes: number): http.Server {
  const body = Buffer.from(`{${' '.repeat(Math.max(0, bytes - 2))}}`);
  return http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body));
  });
}

/** `api2`: forks the API processes and reports ready once each listens; they end with this process. */
function primary(): void {
  const workers = Array.from({ length: API2_PROCESSES }, () => cluster.fork());
  let listening = 0;
  for (const worker of workers) {
    worker.once('listening', () => {
      if (++listening === workers.length) process.send?.({ pids: workers.map((w) => w.process.pid) });
    });
    worker.once('exit', (code) => code !== 0 && process.exit(1));
  }
  process.once('SIGTERM', () => {
    workers.forEach((w) => w.process.kill('SIGTERM'));
    process.exit(0);
  });
}

(async () => {
  if (mode === 'api2' && cluster.isPrimary) return primary();
  const server = mode === 'floor' ? floorServer(Number(arg)) : (mode === 'baseline' ? baselineApp() : await apiApp()).callback();
  const listening = server instanceof http.Server ? server : http.createServer(server);
  listening.listen(Number(port), '127.0.0.1', () => process.send?.({ pids: [process.pid] }));
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
