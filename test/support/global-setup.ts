import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { connectAndMigrate } from '../../src/db/data-source';
import { ADMIN_DATABASE_URL, databaseUrl } from './env';
import { startRunDevServer, stopRunDevServer } from './run-dev-server';
import { WORKFLOW_BUNDLE_ENV, writeWorkflowBundle } from './workflow-bundle';

/**
 * Migrates one template database per test run; every test file then gets its own copy
 * (CREATE DATABASE … TEMPLATE), which takes milliseconds and keeps files independent.
 * Bundles the workflows from the sources once per run (≈2.4 s) into a file every test worker
 * loads (`workflowBundle()`), instead of once per test file.
 * Starts one Temporal dev server for the run, on which each test file that needs one gets a
 * namespace of its own (`devServerEnv()`), instead of a server per file.
 */
export default async function globalSetup(): Promise<void> {
  // One run id names every database of this run, so parallel runs never touch each other's.
  const run = randomBytes(4).toString('hex');
  const template = `mts_tmpl_${run}`;
  const bundle = path.join(os.tmpdir(), `mts-workflow-bundle-${run}.js`);
  const bundled = writeWorkflowBundle(bundle);
  const server = startRunDevServer();
  // Awaited below, after the migration.
  bundled.catch(() => undefined);
  server.catch(() => undefined);
  try {
    const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${template}`);
    await admin.end();
    const ds = await connectAndMigrate({ url: databaseUrl(template), poolSize: 1 });
    await ds.destroy();
    await bundled;
    await server;
  } catch (error) {
    // Jest runs no teardown after a failed set-up: a server left running would keep it from exiting.
    await server.then(stopRunDevServer, () => undefined);
    throw error;
  }
  process.env[WORKFLOW_BUNDLE_ENV] = bundle;
  process.env.MTS_TEST_RUN = run;
  process.env.MTS_TEMPLATE_DB = template;
}
