import type { TestApi } from './api';

/** How soon a notified change must show: far below any TTL the Discover cache tests set. */
export const NOTIFIED_WITHIN_MS = 5_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reads `read` until it returns `wanted` or NOTIFIED_WITHIN_MS pass; returns the last value. */
export async function soon<T>(read: () => Promise<T>, wanted: T): Promise<T> {
  const deadline = Date.now() + NOTIFIED_WITHIN_MS;
  let value = await read();
  while (value !== wanted && Date.now() < deadline) {
    await sleep(20);
    value = await read();
  }
  return value;
}

/** The API's Discover change listener connection, as PostgreSQL sees it (other test files' APIs use other databases). */
export const listenerPids = async (api: TestApi): Promise<number[]> =>
  (
    await api.database.db.query(
      `SELECT pid FROM pg_stat_activity WHERE application_name = 'discover-changes' AND datname = current_database()`,
    )
  ).map((r: { pid: number }) => r.pid);

/** Waits until the API's change listener is connected and listening. */
export async function listenerConnected(api: TestApi): Promise<void> {
  const deadline = Date.now() + NOTIFIED_WITHIN_MS;
  while ((await listenerPids(api)).length === 0) {
    if (Date.now() > deadline) throw new Error('the Discover change listener never connected');
    await sleep(20);
  }
  // LISTEN follows the connection at once; let it land.
  await sleep(100);
}
