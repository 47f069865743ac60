import { spawn, type ChildProcess } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { createWorker } from '../../worker/create-worker';
import { createStartDispatcher } from '../../worker/start-dispatcher';
import { registerSeller, startTestApi, testEnv } from '../support/api';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { ROOT } from '../support/env';
import { createListing } from '../support/listings';
import { eventually } from '../support/stack';
import { devServerEnv, freePort, workflowBundle } from '../support/temporal';
import { WebhookReceiver } from '../support/webhook-receiver';

const WEBHOOK_ENV = { WEBHOOK_RETRY_SCHEDULE: '500ms,1s,1s,1s,1s', WEBHOOK_TIMEOUT: '2s', WORKFLOW_START_INTERVAL: '200ms' };

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await WebhookReceiver.start();
});
afterAll(() => receiver.close());

/** Every event has a SUCCEEDED delivery and the receiver accepted a correctly signed copy of it. */
async function expectAllDelivered(db: TestDatabase['db'], events: Array<{ eventId: string; data: unknown }>, timeoutMs = 60_000) {
  for (const e of events) {
    await eventually(async () => {
      const [row] = await db.query(`SELECT status FROM webhook_deliveries WHERE event_id = $1`, [e.eventId]);
      return row?.status === 'SUCCEEDED' ? true : null;
    }, timeoutMs);
    const copies = receiver.verified.filter((r) => r.headers['webhook-id'] === e.eventId);
    expect(copies.at(-1)?.payload).toEqual({ type: 'LISTING_CREATED', data: e.data });
  }
}

describe('webhook delivery under faults', () => {
  it('the worker process is killed mid-delivery and restarted: nothing is lost', async () => {
    const env = await devServerEnv();
    const database = await createTestDatabase();
    const api = await startTestApi({ temporal: env.client, database, env: WEBHOOK_ENV });
    // The real worker entry point (worker, activities and outbox dispatcher) as a child process.
    const workerEnv = {
      ...process.env,
      ...testEnv(database.url, WEBHOOK_ENV),
      TEMPORAL_ADDRESS: env.address,
      TEMPORAL_NAMESPACE: env.namespace,
      LOG_LEVEL: 'error',
    };
    const spawnWorker = (): ChildProcess =>
      spawn(process.execPath, ['-r', 'ts-node/register', 'worker/main.ts'], {
        cwd: ROOT,
        env: workerEnv,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    let worker = spawnWorker();
    try {
      const seller = await registerSeller(api);
      await receiver.register(api, seller);
      let hungOnce = false;
      receiver.received.length = 0;
      // The first request is left hanging: the attempt is in flight when the worker dies.
      receiver.respond = () => {
        if (hungOnce) return { status: 200 };
        hungOnce = true;
        return 'hang';
      };
      const events = [await createListing(database.db, seller.id), await createListing(database.db, seller.id)];
      await eventually(async () => (hungOnce ? true : null), 60_000);

      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.kill('SIGKILL');
      await exited;
      receiver.release();
      // Written while no worker (and so no dispatcher) runs: they wait in the outbox.
      events.push(await createListing(database.db, seller.id), await createListing(database.db, seller.id));

      worker = spawnWorker();
      await expectAllDelivered(database.db, events);
      const [{ pending }] = await database.db.query(`SELECT count(*)::int AS pending FROM outbox_events WHERE dispatched_at IS NULL`);
      expect(pending).toBe(0);
    } finally {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      if (worker.exitCode === null) worker.kill('SIGTERM');
      await exited;
      await api.close();
      await database.close();
      await env.teardown();
    }
  }, 240_000);

  it('Temporal is unavailable while listings are created: events wait in the outbox, then all are delivered', async () => {
    const port = await freePort();
    const database = await createTestDatabase();
    const api = await startTestApi({ database, env: WEBHOOK_ENV });
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });
    // The dispatcher's client points at the address where Temporal will come back.
    const temporal = new Client({ connection: Connection.lazy({ address: `127.0.0.1:${port}`, connectTimeout: '1s' }) });
    const dispatcher = createStartDispatcher(
      { ...api.config, starts: { ...api.config.starts, intervalMs: 200, retryMaxMs: 1000 } },
      database.db,
      temporal,
      log,
    );
    let env: TestWorkflowEnvironment | undefined;
    try {
      const seller = await registerSeller(api);
      await receiver.register(api, seller);
      receiver.received.length = 0;
      receiver.respond = () => ({ status: 200 });
      dispatcher.start();
      const events = [];
      for (let i = 0; i < 3; i++) events.push(await createListing(database.db, seller.id, { quantity: i + 1 }));

      await eventually(async () => (warnings.some((w) => w.includes('workflow starts failed')) ? true : null), 60_000);
      // The events fanned out; their deliveries wait in the start outbox with the failure recorded.
      const waiting = await eventually(async () => {
        const rows: Array<{ attempts: number; last_error: string | null }> = await database.db.query(
          `SELECT attempts, last_error FROM workflow_starts WHERE workflow_type = 'webhookDeliveryWorkflow' AND started_at IS NULL`,
        );
        return rows.length === 3 && rows.every((r) => r.attempts >= 1) ? rows : null;
      }, 60_000);
      for (const w of waiting) expect(w.last_error).toEqual(expect.any(String));
      expect(await database.db.query(`SELECT 1 FROM webhook_deliveries`)).toHaveLength(0);

      // With the search attributes the delivery starts carry, as every dev server of the tests.
      env = await devServerEnv({ port });
      const worker = await createWorker({
        config: api.config,
        db: database.db,
        connection: env.nativeConnection,
        workflowBundle: await workflowBundle(),
      });
      await worker.runUntil(expectAllDelivered(database.db, events));
      const [{ left }] = await database.db.query(`SELECT count(*)::int AS left FROM workflow_starts WHERE started_at IS NULL`);
      expect(left).toBe(0);
    } finally {
      await dispatcher.stop();
      await temporal.connection.close();
      await api.close();
      await database.close();
      await env?.teardown();
    }
  }, 240_000);
});
