import { randomUUID } from 'node:crypto';
import { OutboxRetention } from '../../src/services/retention/outbox-retention';
import { registerSeller, startTestApi, type TestApi } from '../support/api';
import { WebhookReceiver } from '../support/webhook-receiver';

let api: TestApi;
let receiver: WebhookReceiver;
beforeAll(async () => {
  api = await startTestApi();
  receiver = await WebhookReceiver.start();
});
afterAll(async () => {
  await receiver.close();
  await api.close();
});

const DAY = 86_400_000;
const q = (sql: string, args: unknown[] = []) => api.database.db.query(sql, args);
const daysAgo = (n: number) => new Date(Date.now() - n * DAY);

async function event(sellerId: string, createdDaysAgo: number, dispatched: boolean, matched = dispatched): Promise<string> {
  const id = randomUUID();
  const at = daysAgo(createdDaysAgo);
  await q(
    `INSERT INTO outbox_events (id, seller_id, type, data, created_at, dispatched_at, alerts_matched_at)
     VALUES ($1, $2, 'LISTING_CREATED', '{}', $3, $4, $5)`,
    [id, sellerId, at, dispatched ? at : null, matched ? at : null],
  );
  return id;
}

async function delivery(eventId: string, endpointId: string, status: string, createdDaysAgo: number): Promise<string> {
  const id = randomUUID();
  const at = daysAgo(createdDaysAgo);
  await q(
    `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, status, created_at) VALUES ($1, $2, $3, 'LISTING_CREATED', $4, $5)`,
    [id, endpointId, eventId, status, at],
  );
  await q(
    `INSERT INTO webhook_attempts (id, delivery_id, endpoint_id, attempted_at, succeeded, latency_ms) VALUES ($1, $2, $3, $4, $5, 12)`,
    [randomUUID(), id, endpointId, at, status === 'SUCCEEDED'],
  );
  return id;
}

async function start(workflowId: string, createdDaysAgo: number, started: boolean): Promise<void> {
  const at = daysAgo(createdDaysAgo);
  await q(
    `INSERT INTO workflow_starts (workflow_type, workflow_id, args, created_at, started_at) VALUES ('reviewWindowWorkflow', $1, '[]', $2, $3)`,
    [workflowId, at, started ? at : null],
  );
}

const exists = async (table: string, column: string, value: string) =>
  (await q(`SELECT 1 FROM ${table} WHERE ${column} = $1`, [value])).length === 1;

test('prunes what is old and finished; keeps what is recent, pending or still referenced', async () => {
  const seller = await registerSeller(api);
  const endpoint = await receiver.register(api, seller);

  const oldDelivered = await event(seller.id, 40, true);
  const oldDeliveredDelivery = await delivery(oldDelivered, endpoint.id, 'SUCCEEDED', 40);
  const oldNoEndpoint = await event(seller.id, 40, true);
  const oldStillPending = await event(seller.id, 40, true);
  const pendingDelivery = await delivery(oldStillPending, endpoint.id, 'PENDING', 40);
  const oldNotFannedOut = await event(seller.id, 40, false);
  const oldNotMatched = await event(seller.id, 40, true, false);
  const recent = await event(seller.id, 2, true);
  const recentDelivery = await delivery(recent, endpoint.id, 'FAILED', 2);
  const tag = randomUUID();
  await start(`old-made:${tag}`, 40, true);
  await start(`old-failing:${tag}`, 40, false);
  await start(`recent-made:${tag}`, 2, true);

  const result = await new OutboxRetention(api.database.db).prune(35 * DAY);

  expect(result).toEqual({ workflowStarts: 1, webhookAttempts: 2, webhookDeliveries: 1, outboxEvents: 2 });
  expect(await exists('outbox_events', 'id', oldDelivered)).toBe(false);
  expect(await exists('webhook_deliveries', 'id', oldDeliveredDelivery)).toBe(false);
  expect(await exists('outbox_events', 'id', oldNoEndpoint)).toBe(false);
  // A pending delivery keeps its delivery row and its event (its old attempt goes).
  expect(await exists('webhook_deliveries', 'id', pendingDelivery)).toBe(true);
  expect(await exists('outbox_events', 'id', oldStillPending)).toBe(true);
  expect(await exists('outbox_events', 'id', oldNotFannedOut)).toBe(true);
  // The alerts matcher has not read it yet (docs/alerts.md).
  expect(await exists('outbox_events', 'id', oldNotMatched)).toBe(true);
  expect(await exists('outbox_events', 'id', recent)).toBe(true);
  expect(await exists('webhook_attempts', 'delivery_id', recentDelivery)).toBe(true);
  expect(await exists('workflow_starts', 'workflow_id', `old-made:${tag}`)).toBe(false);
  expect(await exists('workflow_starts', 'workflow_id', `old-failing:${tag}`)).toBe(true);
  expect(await exists('workflow_starts', 'workflow_id', `recent-made:${tag}`)).toBe(true);

  expect(await new OutboxRetention(api.database.db).prune(35 * DAY)).toEqual({
    workflowStarts: 0,
    webhookAttempts: 0,
    webhookDeliveries: 0,
    outboxEvents: 0,
  });
});
