import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { connectAndMigrate } from '../../src/db/data-source';
import { ADMIN_DATABASE_URL, databaseUrl } from './env';

/**
 * Migrates one template database per test run; every test file then gets its own copy
 * (CREATE DATABASE … TEMPLATE), which takes milliseconds and keeps files independent.
 */
export default async function globalSetup(): Promise<void> {
  // One run id names every database of this run, so parallel runs never touch each other's.
  const run = randomBytes(4).toString('hex');
  const template = `mts_tmpl_${run}`;
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${template}`);
  await admin.end();
  const ds = await connectAndMigrate({ url: databaseUrl(template), poolSize: 1 });
  await ds.destroy();
  process.env.MTS_TEST_RUN = run;
  process.env.MTS_TEMPLATE_DB = template;
}
