// `npm start`: the whole service on its embedded defaults (see README and docs/architecture.md):
//   PostgreSQL  DATABASE_URL, else an embedded server with its data under .data/postgres
//   Temporal    TEMPORAL_ADDRESS, else the Temporal CLI dev server (SQLite under .data/, Web UI)
//   then migrations, the API and the worker. Ctrl-C stops everything this script started.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { DATA_DIR, ensureTemporalBinaries, log, portOpen, run, startEmbeddedPostgres, stopChildren, waitForPort } from './lib.mjs';

const env = { NODE_ENV: 'development', ...process.env };
const apiPort = Number(env.PORT ?? 3000);
const stops = [];
let stopping = false;

async function shutdown(code = 0) {
  if (stopping) return;
  stopping = true;
  log('stopping …');
  await stopChildren();
  for (const stop of stops.reverse()) await stop().catch(() => {});
  process.exit(code);
}
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));

async function postgres() {
  if (env.DATABASE_URL) return log('PostgreSQL: DATABASE_URL');
  const port = Number(env.EMBEDDED_POSTGRES_PORT ?? 5433);
  if (await portOpen(port)) throw new Error(`port ${port} is taken; set EMBEDDED_POSTGRES_PORT or DATABASE_URL`);
  const embedded = await startEmbeddedPostgres({ dir: path.join(DATA_DIR, 'postgres'), port, persistent: true });
  stops.push(() => embedded.pg.stop());
  const client = embedded.pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  const exists = await client.query(`SELECT 1 FROM pg_database WHERE datname = 'marketplace'`);
  if (exists.rowCount === 0) await client.query('CREATE DATABASE marketplace');
  await client.end();
  env.DATABASE_URL = embedded.url('marketplace');
  log(`PostgreSQL: embedded, port ${port}, data in .data/postgres`);
}

async function temporal() {
  if (env.TEMPORAL_ADDRESS) return log(`Temporal: ${env.TEMPORAL_ADDRESS}`);
  const port = Number(env.TEMPORAL_DEV_PORT ?? 7233);
  const uiPort = Number(env.TEMPORAL_UI_PORT ?? 8233);
  // The worker serves the codec endpoint (src/temporal/codec-server.ts); the UI decrypts payloads through it.
  const codecPort = Number(env.CODEC_PORT ?? 8234);
  env.CODEC_CORS_ORIGINS ??= `http://127.0.0.1:${uiPort},http://localhost:${uiPort}`;
  env.TEMPORAL_ADDRESS = `127.0.0.1:${port}`;
  if (await portOpen(port)) return log(`Temporal: reusing the server already on port ${port}`);
  const { cli } = ensureTemporalBinaries();
  const server = run(
    cli,
    [
      'server',
      'start-dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--ui-port',
      String(uiPort),
      '--db-filename',
      path.join(DATA_DIR, 'temporal.sqlite'),
      '--log-level',
      'error',
      '--ui-disable-news-fetch',
      ...(codecPort === 0 ? [] : ['--ui-codec-endpoint', `http://127.0.0.1:${codecPort}`]),
      // Every custom search attribute (src/domain/search-attributes.ts; a unit test keeps the lists equal).
      ...[
        'CaseStatus',
        'CaseReason',
        'CaseSellerId',
        'CaseOrderId',
        'WebhookEndpointId',
        'WebhookSellerId',
        'WebhookEventType',
        'WebhookOutcome',
        'ImportSellerId',
        'ImportStatus',
      ].flatMap((name) => ['--search-attribute', `${name}=Keyword`]),
      // Task-queue fairness: a seller's burst of webhook deliveries is dispatched round-robin with
      // everyone else's work (src/temporal/task-queue-fairness.ts; a unit test keeps the lists equal).
      ...['matching.useNewMatcher=true', 'matching.enableFairness=true'].flatMap((value) => ['--dynamic-config-value', value]),
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  server.once('exit', (code) => !stopping && (log(`Temporal dev server exited (${code})`), shutdown(1)));
  await waitForPort(port, 'Temporal dev server');
  env.TEMPORAL_UI_URL = `http://127.0.0.1:${uiPort}`;
  log(`Temporal: dev server on port ${port}, data in .data/temporal.sqlite`);
}

function tsNode(entry) {
  return [process.execPath, ['-r', 'ts-node/register', entry]];
}

try {
  await postgres();
  await temporal();
  const [node, migrateArgs] = tsNode('scripts/migrate.ts');
  if (spawnSync(node, migrateArgs, { stdio: 'inherit', env }).status !== 0) throw new Error('migrations failed');
  // The demo catalog (data/catalog/) is loaded once, into an empty catalog only.
  const [, seedArgs] = tsNode('scripts/catalog-import.ts');
  const seed = ['--if-empty', 'data/catalog/items.ndjson', 'data/catalog/sets.ndjson'];
  if (spawnSync(node, [...seedArgs, ...seed], { stdio: 'inherit', env }).status !== 0) throw new Error('loading the demo catalog failed');
  for (const entry of ['src/main.ts', 'worker/main.ts']) {
    const child = run(...tsNode(entry), { env });
    child.once('exit', (code) => !stopping && (log(`${entry} exited (${code})`), shutdown(1)));
  }
  await waitForPort(apiPort, 'API');
  const base = env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${apiPort}`;
  log(`API          ${base}`);
  log(`API docs     ${base}/docs`);
  log(`OpenAPI      ${base}/openapi.json`);
  if (env.TEMPORAL_UI_URL) log(`Temporal UI  ${env.TEMPORAL_UI_URL}`);
  log('Ctrl-C stops everything.');
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  await shutdown(1);
}
