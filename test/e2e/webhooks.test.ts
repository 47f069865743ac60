import { webhooksWorkflowIds } from '../../src/modules/webhooks';
import { registerSeller } from '../support/api';
import { apiClient, dataOf, expectStatus } from '../support/client';
import { createListing } from '../support/listings';
import { eventually, startStack, type TestStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

let stack: TestStack;
let receiver: WebhookReceiver;
beforeAll(async () => {
  stack = await startStack({ WEBHOOK_RETRY_SCHEDULE: '500ms,1s,1s,1s', WEBHOOK_TIMEOUT: '2s', WORKFLOW_START_INTERVAL: '200ms' });
  receiver = await WebhookReceiver.start();
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.respond = () => ({ status: 200, body: 'ok' });
});

const deliveryStatus = async (eventId: string) => {
  const [row] = await stack.api.database.db.query(`SELECT status FROM webhook_deliveries WHERE event_id = $1`, [eventId]);
  return row?.status as string | undefined;
};

describe('webhooks, end to end (API → outbox → dispatcher → Temporal → worker → receiver)', () => {
  it('create disabled → subscribe → custom header → test → enable → LISTING_CREATED with exactly the spec fields', async () => {
    const { api, env } = stack;
    const seller = await registerSeller(api);
    const endpoint = await receiver.register(api, seller, { enabled: false, subscriptions: [] });
    const client = apiClient(api, seller.bearer);
    const webhook = { params: { path: { webhookId: endpoint.id } } };
    await expectStatus(
      client.PUT('/seller/webhooks/{webhookId}/subscriptions', { ...webhook, body: { subscriptions: ['LISTING_CREATED'] } }),
      200,
    );
    await expectStatus(
      client.PATCH('/seller/webhooks/{webhookId}', { ...webhook, body: { headers: { 'X-Receiver-Token': 'r-123' } } }),
      200,
    );

    // While disabled, marketplace events are not sent to it.
    const early = await createListing(api.database.db, seller.id);
    await eventually(async () =>
      (await api.database.db.query(`SELECT 1 FROM outbox_events WHERE id = $1 AND dispatched_at IS NOT NULL`, [early.eventId])).length
        ? true
        : null,
    );

    const test = await dataOf(client.POST('/seller/webhooks/{webhookId}/test', webhook), 202);
    const testReceived = await eventually(async () => receiver.verified.find((r) => r.headers['webhook-id'] === test.eventId));
    expect(testReceived.payload.type).toBe('TEST_WEBHOOK');
    expect(Object.keys(testReceived.payload.data).sort()).toEqual(['createdAt', 'sellerId']);
    expect(testReceived.payload.data.sellerId).toBe(seller.id);
    expect(testReceived.headers['x-receiver-token']).toBe('r-123');

    await expectStatus(client.PATCH('/seller/webhooks/{webhookId}', { ...webhook, body: { enabled: true } }), 200);
    const listing = await createListing(api.database.db, seller.id, { urn: 'urn:mts:card:base1-58', quantity: 3, price: 899 });

    const got = await eventually(async () => receiver.verified.find((r) => r.headers['webhook-id'] === listing.eventId));
    expect(got.payload).toEqual({ type: 'LISTING_CREATED', data: listing.data });
    expect(Object.keys(got.payload.data).sort()).toEqual(['createdAt', 'listingId', 'price', 'quantity', 'sellerId', 'urn']);
    expect(got.headers['x-receiver-token']).toBe('r-123');
    expect(receiver.received.some((r) => r.headers['webhook-id'] === early.eventId)).toBe(false);

    // Operators find the delivery under its deterministic workflow id (also in the Web UI).
    const handle = env.client.workflow.getHandle(webhooksWorkflowIds.delivery(listing.eventId, endpoint.id));
    expect(await handle.result()).toEqual({ outcome: 'delivered', attempts: 1 });

    const metrics = await dataOf(
      client.GET('/seller/webhooks/{webhookId}/metrics', { params: { path: { webhookId: endpoint.id }, query: { window: '1h' } } }),
    );
    expect(metrics.deliveries).toEqual({ total: 2, succeeded: 2, failed: 0, pending: 0 });
    expect(metrics.successRate).toBe(1);
    expect(metrics.latencyMs.p50).toEqual(expect.any(Number));
  });

  it('retries a receiver answering 500 until it accepts: every event delivered; failures inspectable; replay resends', async () => {
    const { api } = stack;
    const seller = await registerSeller(api);
    const endpoint = await receiver.register(api, seller);
    const failFirst = 4;
    receiver.respond = (_r, n) => (n <= failFirst ? { status: 500, body: 'receiver down' } : { status: 200 });

    const events = [];
    for (let i = 0; i < 3; i++) events.push(await createListing(api.database.db, seller.id, { quantity: i + 1 }));
    for (const e of events) await eventually(async () => ((await deliveryStatus(e.eventId)) === 'SUCCEEDED' ? true : null), 30_000);
    for (const e of events) {
      const accepted = receiver.verified.filter((r) => r.headers['webhook-id'] === e.eventId).at(-1);
      expect(accepted?.payload).toEqual({ type: 'LISTING_CREATED', data: e.data });
    }

    const client = apiClient(api, seller.bearer);
    const failuresPage = (page?: number) =>
      dataOf(
        client.GET('/seller/webhooks/{webhookId}/failures', {
          params: { path: { webhookId: endpoint.id }, query: { statusCode: 500, size: 2, page } },
        }),
      );
    const failures = await failuresPage();
    expect(failures.total).toBe(failFirst);
    expect(failures.items).toHaveLength(2);
    expect(failures.items[0]).toMatchObject({
      statusCode: 500,
      error: 'HTTP 500',
      responseExcerpt: 'receiver down',
      deliveryStatus: 'SUCCEEDED',
    });
    const page3 = await failuresPage(3);
    expect(page3.items).toEqual([]);

    const { deliveryId, eventId } = failures.items[0]!;
    const before = receiver.received.length;
    await expectStatus(
      client.POST('/seller/webhooks/{webhookId}/deliveries/{deliveryId}/replay', {
        params: { path: { webhookId: endpoint.id, deliveryId } },
      }),
      202,
    );
    const replayed = await eventually(async () => receiver.received.slice(before).find((r) => r.headers['webhook-id'] === eventId));
    expect(replayed.payload).not.toBeNull();
  });

  it('stops on 410 Gone and disables the endpoint', async () => {
    const { api } = stack;
    const seller = await registerSeller(api);
    const endpoint = await receiver.register(api, seller);
    receiver.respond = () => ({ status: 410 });
    const { eventId } = await createListing(api.database.db, seller.id);
    await eventually(async () => ((await deliveryStatus(eventId)) === 'FAILED' ? true : null));
    const read = await dataOf(
      apiClient(api, seller.bearer).GET('/seller/webhooks/{webhookId}', { params: { path: { webhookId: endpoint.id } } }),
    );
    expect(read).toMatchObject({ enabled: false, disabledReason: 'GONE' });
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === eventId)).toHaveLength(1);
  });
});
