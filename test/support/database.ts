import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/db/data-source';
import { ADMIN_DATABASE_URL, databaseUrl } from './env';

export interface TestDatabase {
  url: string;
  db: DataSource;
  /**
   * Closes this file's connections. The database itself stays until the run's global teardown
   * drops every database of the run at once: each DROP DATABASE makes the server take an
   * immediate checkpoint, which took 1–5 s on a busy machine at the end of every test file,
   * while concurrent drops share one.
   */
  close(): Promise<void>;
}

/** The prefix of the names of one run's test databases (global-teardown.ts drops them). */
export const runDatabasePrefix = (run: string) => `mts_t_${run}_`;

async function admin<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: ADMIN_DATABASE_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A fresh, migrated database for one test file (a copy of the run's template). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const template = process.env.MTS_TEMPLATE_DB;
  const run = process.env.MTS_TEST_RUN;
  if (!template || !run) throw new Error('MTS_TEMPLATE_DB is not set; run the tests through jest (globalSetup)');
  const name = `${runDatabasePrefix(run)}${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
  const url = databaseUrl(name);
  const db = createDataSource({ url, poolSize: 5 });
  await db.initialize();
  return { url, db, close: () => db.destroy() };
}
