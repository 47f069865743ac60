import path from 'node:path';

/** Where `scripts/temporal-bin.mjs` installs the Temporal binaries (overridable). */
export const ROOT = path.resolve(__dirname, '../..');
export const TEMPORAL_CLI = process.env.TEMPORAL_CLI_PATH ?? path.join(ROOT, '.venv/bin/temporal');
export const TEMPORAL_TEST_SERVER = process.env.TEMPORAL_TEST_SERVER_PATH ?? path.join(ROOT, '.venv/bin/temporal-test-server');

/** Server URL of the Postgres the tests may create databases on (set by scripts/test.mjs). */
export const ADMIN_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}
