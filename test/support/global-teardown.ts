import { rmSync } from 'node:fs';
import { Client } from 'pg';
import { ADMIN_DATABASE_URL } from './env';

export default async function globalTeardown(): Promise<void> {
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`, [
    process.env.MTS_TEMPLATE_DB,
    `mts\\_t\\_${process.env.MTS_TEST_RUN}\\_%`,
  ]);
  for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  await admin.end();
  if (process.env.MTS_WORKFLOW_BUNDLE) rmSync(process.env.MTS_WORKFLOW_BUNDLE, { force: true });
}
