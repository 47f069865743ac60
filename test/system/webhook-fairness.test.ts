import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkerGroup } from '../../worker/worker-group';
import type { DataSource } from 'typeorm';
import { createLogger } from '../../src/logger';
import { emitEvents } from '../../src/services/events/outbox';
import type { StartDispatcher } from '../../src/services/workflow-starts/dispatcher';
import { createWorker } from '../../worker/create-worker';
import { createStartDispatcher } from '../../worker/start-dispatcher';
import { registerSeller, startTestApi, type TestApi } from '../support/api';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { recordReplayHistories } from '../support/replay-histories';
import { listingEventData } from '../support/listings';
import { eventually } from '../support/stack';
import { devServerEnv, workflowBundle } from '../support/temporal';
import { WebhookReceiver } from '../support/webhook-receiver';

const BACKLOG = 300;
/**
 * Where the other seller's event may arrive at the latest. Its task is first or second in the
 * one fair queue (it ties with the backlog's first); the delivery queue's two slots may take both
 * at once, so one more place of slack. With four task-queue partitions it arrived
 * anywhere up to 53rd (src/temporal/task-queue-fairness.ts).
 */
const WITHIN = 3;

let env: TestWorkflowEnvironment;
let database: TestDatabase;
let api: TestApi;
let receiver: WebhookReceiver;
let dispatcher: StartDispatcher | undefined;
let worker: { worker: WorkerGroup; running: Promise<void> } | undefined;

beforeAll(async () => {
  env = await devServerEnv();
  database = await createTestDatabase();
  api = await startTestApi({
    temporal: env.client,
    database,
    env: {
      WORKFLOW_START_INTERVAL: '200ms',
      // Two deliveries at a time (each attempt runs inside its workflow task, and the SDK keeps at
      // least two), so the order of arrival is the order in which Temporal hands the tasks out.
      // With the defaults the first wave of up to 100 deliveries ran concurrently and arrived in
      // any order within it, which made a bound on the position a race.
      WEBHOOK_CONCURRENCY: '2',
    },
  });
  receiver = await WebhookReceiver.start();
}, 60_000);

afterAll(async () => {
  await dispatcher?.stop();
  if (env) await recordReplayHistories(env.client);
  worker?.worker.shutdown();
  await worker?.running;
  await receiver?.close();
  await api?.close();
  await database?.close();
  await env?.teardown();
});

const listingEvents = (db: DataSource, sellerId: string, count: number) =>
  db.transaction((tx) =>
    emitEvents(
      tx,
      'LISTING_CREATED',
      Array.from({ length: count }, (_, n) => listingEventData(sellerId, n)),
    ),
  );

const startedDeliveries = async (sellerId: string): Promise<number> => {
  const [{ n }] = await database.db.query(
    `SELECT count(*)::int AS n FROM workflow_starts WHERE workflow_type = 'webhookDeliveryWorkflow' AND fairness_key = $1 AND started_at IS NOT NULL`,
    [sellerId],
  );
  return n;
};

/**
 * Temporal's task queue is the last queue on a delivery's path. One seller's deliveries are
 * already started and waiting there (no worker is polling) when another seller's single event
 * is started behind them; then the worker comes up. With task-queue fairness (over one partition)
 * the single event is dispatched round-robin with the backlog, so it reaches its receiver among
 * the first deliveries, not after the whole backlog. The order of arrival at the receiver is the
 * measure, not a time.
 */
it("another seller's event is delivered before one seller's backlog drains from Temporal's task queue", async () => {
  const busy = await registerSeller(api, 'busy');
  const other = await registerSeller(api, 'other');
  await receiver.register(api, busy);
  await receiver.register(api, other);
  dispatcher = createStartDispatcher(api.config, database.db, env.client, createLogger('silent', 'start-dispatcher'));
  dispatcher.start();

  await listingEvents(database.db, busy.id, BACKLOG);
  await eventually(async () => ((await startedDeliveries(busy.id)) === BACKLOG ? true : null), 60_000);
  const [single] = await listingEvents(database.db, other.id, 1);
  await eventually(async () => ((await startedDeliveries(other.id)) === 1 ? true : null));
  expect(receiver.received).toHaveLength(0);

  const created = await createWorker({
    config: api.config,
    db: database.db,
    connection: env.nativeConnection,
    workflowBundle: await workflowBundle(),
  });
  worker = { worker: created, running: created.run() };

  const order = await eventually(async () => {
    const ids = [...new Set(receiver.received.map((r) => r.headers['webhook-id'] as string))];
    return ids.length === BACKLOG + 1 ? ids : null;
  }, 150_000);
  // Oldest first, it would arrive last (position BACKLOG).
  expect(order.indexOf(single!)).toBeGreaterThanOrEqual(0);
  expect(order.indexOf(single!)).toBeLessThan(WITHIN);
}, 240_000);
