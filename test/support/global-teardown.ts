import { rmSync } from 'node:fs';
import { Client } from 'pg';
import { runDatabasePrefix } from './database';
import { stopRunDevServer } from './run-dev-server';
import { ADMIN_DATABASE_URL } from './env';

/** Concurrent drops: each waits for a server checkpoint, and concurrent ones share it. */
const DROP_CONCURRENCY = 8;

/** Stops the run's dev server, drops the run's template and every test database of the run, removes the workflow bundle. */
export default async function globalTeardown(): Promise<void> {
  await stopRunDevServer();
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  const { rows } = await admin.query<{ datname: string }>(
    `SELECT datname FROM pg_database WHERE datname = $1 OR starts_with(datname, $2)`,
    [process.env.MTS_TEMPLATE_DB, runDatabasePrefix(process.env.MTS_TEST_RUN ?? '')],
  );
  await admin.end();
  const names = rows.map((r) => r.datname);
  const lane = async () => {
    const c = new Client({ connectionString: ADMIN_DATABASE_URL });
    await c.connect();
    try {
      for (let name = names.pop(); name !== undefined; name = names.pop()) await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await c.end();
    }
  };
  await Promise.all(Array.from({ length: Math.min(DROP_CONCURRENCY, names.length) }, lane));
  if (process.env.MTS_WORKFLOW_BUNDLE) rmSync(process.env.MTS_WORKFLOW_BUNDLE, { force: true });
}
