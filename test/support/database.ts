import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/db/data-source';
import { ADMIN_DATABASE_URL, databaseUrl } from './env';

export interface TestDatabase {
  url: string;
  db: DataSource;
  drop(): Promise<void>;
}

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
  if (!template) throw new Error('MTS_TEMPLATE_DB is not set; run the tests through jest (globalSetup)');
  const name = `mts_t_${process.env.MTS_TEST_RUN}_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
  const url = databaseUrl(name);
  const db = createDataSource({ url, poolSize: 5 });
  await db.initialize();
  return {
    url,
    db,
    drop: async () => {
      await db.destroy();
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
