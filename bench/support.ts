// Small helpers shared by the benchmark scripts.
import { Client } from 'pg';

/** Runs one statement on the `postgres` database of the server `databaseUrl` points at (CREATE/DROP DATABASE). */
export async function adminQuery(databaseUrl: string, sql: string): Promise<void> {
  const url = new URL(databaseUrl);
  url.pathname = '/postgres';
  const c = new Client({ connectionString: url.toString() });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Nearest-rank percentile of an ascending array (NaN when empty). */
export const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
