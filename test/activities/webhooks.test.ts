import { createWebhookActivities, type AttemptInput } from '../../activities/webhooks';
import { WebhookDeliveryAttempts } from '../../src/services/webhooks/delivery-attempts';
import { emitEvents, type ListingEventData } from '../../src/services/events/outbox';
import { newId } from '../../src/ids';
import { registerSeller, startTestApi, type TestApi, type TestUser } from '../support/api';
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
beforeEach(() => {
  receiver.received.length = 0;
  receiver.respond = () => ({ status: 200, body: 'ok' });
});

const DAY = 86_400_000;
const activities = (overrides: { allowPrivateUrls?: boolean } = {}) =>
  createWebhookActivities({
    webhookAttempts: new WebhookDeliveryAttempts(api.database.db, {
      secretKey: api.config.webhooks.secretKey,
      allowPrivateUrls: overrides.allowPrivateUrls ?? true,
      disableAfterMs: 5 * DAY,
    }),
  });

const endpointFor = (seller: TestUser, body: Record<string, unknown> = {}) => receiver.register(api, seller, body);

async function listingEvent(seller: TestUser): Promise<{ eventId: string; data: ListingEventData }> {
  const data: ListingEventData = {
    sellerId: seller.id,
    createdAt: new Date().toISOString(),
    urn: 'urn:card:1',
    listingId: newId(),
    quantity: 2,
    price: 450,
  };
  const [eventId] = await api.database.db.transaction((tx) => emitEvents(tx, 'LISTING_CREATED', [data]));
  return { eventId: eventId!, data };
}

const input = (eventId: string, endpointId: string, finalAttempt = false): AttemptInput => ({
  eventId,
  endpointId,
  finalAttempt,
  timeoutMs: 2000,
});

const q = (sql: string, args: unknown[]) => api.database.db.query(sql, args);

describe('attemptWebhookDelivery (on Postgres, real HTTP)', () => {
  it('POSTs the signed event with custom headers and records a successful attempt', async () => {
    const seller = await registerSeller(api);
    const endpoint = await endpointFor(seller, { headers: { 'X-Shop': 'north' } });
    const { eventId, data } = await listingEvent(seller);

    expect(await activities().attemptWebhookDelivery(input(eventId, endpoint.id))).toEqual({ outcome: 'delivered' });

    expect(receiver.verified).toHaveLength(1);
    const got = receiver.verified[0]!;
    expect(got.payload).toEqual({ type: 'LISTING_CREATED', data });
    expect(got.headers['webhook-id']).toBe(eventId);
    expect(got.headers['x-shop']).toBe('north');
    expect(got.headers['content-type']).toBe('application/json');
    const [delivery] = await q(`SELECT id, status, attempts, delivered_at FROM webhook_deliveries WHERE event_id = $1`, [eventId]);
    expect(delivery).toMatchObject({ status: 'SUCCEEDED', attempts: 1 });
    expect(delivery.delivered_at).toBeInstanceOf(Date);
    const [attempt] = await q(`SELECT succeeded, status_code, response_excerpt, error FROM webhook_attempts WHERE delivery_id = $1`, [
      delivery.id,
    ]);
    expect(attempt).toEqual({ succeeded: true, status_code: 200, response_excerpt: 'ok', error: null });
  });

  it('keeps webhook-id across attempts while timestamp and signature are fresh', async () => {
    const seller = await registerSeller(api);
    const endpoint = await endpointFor(seller);
    const { eventId } = await listingEvent(seller);
    receiver.respond = (_r, n) => (n === 1 ? { status: 500, body: 'boom' } : { status: 200 });
    expect(await activities().attemptWebhookDelivery(input(eventId, endpoint.id))).toEqual({ outcome: 'retry', retryAfterMs: null });
    await new Promise((r) => setTimeout(r, 1100));
    expect(await activities().attemptWebhookDelivery(input(eventId, endpoint.id))).toEqual({ outcome: 'delivered' });
    const [a, b] = receiver.received;
    expect(a!.headers['webhook-id']).toBe(b!.headers['webhook-id']);
    expect(a!.headers['webhook-timestamp']).not.toBe(b!.headers['webhook-timestamp']);
    expect(a!.headers['webhook-signature']).not.toBe(b!.headers['webhook-signature']);
    const [delivery] = await q(`SELECT status, attempts FROM webhook_deliveries WHERE event_id = $1`, [eventId]);
    expect(delivery).toEqual({ status: 'SUCCEEDED', attempts: 2 });
  });

  it('records a failure with its excerpt and Retry-After; the final failed attempt fails the delivery', async () => {
    const seller = await registerSeller(api);
    const endpoint = await endpointFor(seller);
    const { eventId } = await listingEvent(seller);
    receiver.respond = () => ({ status: 503, headers: { 'Retry-After': '120' }, body: 'maintenance' });
    expect(await activities().attemptWebhookDelivery(input(eventId, endpoint.id))).toEqual({ outcome: 'retry', retryAfterMs: 120_000 });
    const [pending] = await q(`SELECT status FROM webhook_deliveries WHERE event_id = $1`, [eventId]);
    expect(pending.status).toBe('PENDING');
    await activities().attemptWebhookDelivery(input(eventId, endpoint.id, true));
    const [failed] = await q(`SELECT status, attempts FROM webhook_deliveries WHERE event_id = $1`, [eventId]);
    expect(failed).toEqual({ status: 'FAILED', attempts: 2 });
    const attempts = await q(`SELECT status_code, error, response_excerpt FROM webhook_attempts WHERE endpoint_id = $1`, [endpoint.id]);
    expect(attempts).toEqual([
      { status_code: 503, error: 'HTTP 503', response_excerpt: 'maintenance' },
      { status_code: 503, error: 'HTTP 503', response_excerpt: 'maintenance' },
    ]);
    const [ep] = await q(`SELECT failing_since FROM webhook_endpoints WHERE id = $1`, [endpoint.id]);
    expect(ep.failing_since).toBeInstanceOf(Date);
  });

  it('disables the endpoint on 410 Gone', async () => {
    const seller = await registerSeller(api);
    const endpoint = await endpointFor(seller);
    const { eventId } = await listingEvent(seller);
    receiver.respond = () => ({ status: 410 });
    expect(await activities().attemptWebhookDelivery(input(eventId, endpoint.id))).toEqual({ outcome: 'gone' });
    const [ep] = await q(`SELECT enabled, disabled_reason FROM webhook_endpoints WHERE id = $1`, [endpoint.id]);
    expect(ep).toEqual({ enabled: false, disabled_reason: 'GONE' });
  });

  it('disables an endpoint failing for longer than the period, and e-mails its owner once', async () => {
    const seller = await registerSeller(api);
    const endpoint = await endpointFor(seller);
    receiver.respond = () => ({ status: 500 });
    await q(`UPDATE webhook_endpoints SET failing_since = now() - interval '6 days' WHERE id = $1`, [endpoint.id]);
    const first = await listingEvent(seller);
    const result = await activities().attemptWebhookDelivery(input(first.eventId, endpoint.id));
    expect(result.outcome).toBe('disabled');
    const [ep] = await q(`SELECT enabled, disabled_reason FROM webhook_endpoints WHERE id = $1`, [endpoint.id]);
    expect(ep).toEqual({ enabled: false, disabled_reason: 'FAILING' });
    const mails = await q(`SELECT id, kind, body_text FROM email_messages WHERE to_address = $1`, [seller.email]);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ id: (result as { notificationId: string }).notificationId, kind: 'webhook-disabled' });
    expect(mails[0].body_text).toContain(receiver.url);

    // Once disabled, other deliveries to it stop without sending or mailing again.
    const second = await listingEvent(seller);
    receiver.received.length = 0;
    expect(await activities().attemptWebhookDelivery(input(second.eventId, endpoint.id))).toEqual({ outcome: 'skipped' });
    expect(receiver.received).toHaveLength(0);
    expect(await q(`SELECT 1 FROM email_messages WHERE to_address = $1`, [seller.email])).toHaveLength(1);
  });

  it('a success ends the failing period', async () => {
    const seller = await registerSeller(api);
    const endpoint = await endpointFor(seller);
    await q(`UPDATE webhook_endpoints SET failing_since = now() - interval '1 day' WHERE id = $1`, [endpoint.id]);
    const { eventId } = await listingEvent(seller);
    await activities().attemptWebhookDelivery(input(eventId, endpoint.id));
    const [ep] = await q(`SELECT failing_since FROM webhook_endpoints WHERE id = $1`, [endpoint.id]);
    expect(ep.failing_since).toBeNull();
  });

  it('sends TEST_WEBHOOK to a disabled endpoint but no marketplace event', async () => {
    const seller = await registerSeller(api);
    const endpoint = await endpointFor(seller, { enabled: false });
    const { eventId } = await listingEvent(seller);
    expect(await activities().attemptWebhookDelivery(input(eventId, endpoint.id))).toEqual({ outcome: 'skipped' });
    expect(receiver.received).toHaveLength(0);
    const testId = newId();
    await q(`INSERT INTO outbox_events (id, seller_id, type, data, dispatched_at) VALUES ($1, $2, 'TEST_WEBHOOK', $3, now())`, [
      testId,
      seller.id,
      { sellerId: seller.id, createdAt: new Date().toISOString() },
    ]);
    expect(await activities().attemptWebhookDelivery(input(testId, endpoint.id))).toEqual({ outcome: 'delivered' });
    expect(receiver.verified[0]!.payload.type).toBe('TEST_WEBHOOK');
  });

  it("never sends a seller's event to another seller's endpoint", async () => {
    const owner = await registerSeller(api);
    const other = await registerSeller(api);
    const endpoint = await endpointFor(other);
    const { eventId } = await listingEvent(owner);
    expect(await activities().attemptWebhookDelivery(input(eventId, endpoint.id))).toEqual({ outcome: 'skipped' });
    expect(receiver.received).toHaveLength(0);
  });

  it('refuses loopback targets at delivery time when private addresses are not allowed', async () => {
    const seller = await registerSeller(api);
    const endpoint = await endpointFor(seller);
    const { eventId } = await listingEvent(seller);
    const result = await activities({ allowPrivateUrls: false }).attemptWebhookDelivery(input(eventId, endpoint.id));
    expect(result.outcome).toBe('retry');
    expect(receiver.received).toHaveLength(0);
    const [attempt] = await q(`SELECT status_code, error FROM webhook_attempts WHERE endpoint_id = $1`, [endpoint.id]);
    expect(attempt.status_code).toBeNull();
    expect(attempt.error).toMatch(/not a public address/);
  });

  it('refuses a host name that resolves to loopback (checked on the resolved address)', async () => {
    const seller = await registerSeller(api);
    const endpoint = await endpointFor(seller);
    await q(`UPDATE webhook_endpoints SET url = $2 WHERE id = $1`, [endpoint.id, receiver.url.replace('127.0.0.1', 'localhost')]);
    const { eventId } = await listingEvent(seller);
    await activities({ allowPrivateUrls: false }).attemptWebhookDelivery(input(eventId, endpoint.id));
    expect(receiver.received).toHaveLength(0);
    const [attempt] = await q(`SELECT error FROM webhook_attempts WHERE endpoint_id = $1`, [endpoint.id]);
    expect(attempt.error).toMatch(/non-public address/);
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    const seller = await registerSeller(api);
    const endpoint = await endpointFor(seller);
    const { eventId } = await listingEvent(seller);
    receiver.respond = () => 'hang';
    const result = await activities().attemptWebhookDelivery({ ...input(eventId, endpoint.id), timeoutMs: 300 });
    expect(result.outcome).toBe('retry');
    const [attempt] = await q(`SELECT status_code, error FROM webhook_attempts WHERE endpoint_id = $1`, [endpoint.id]);
    expect(attempt).toEqual({ status_code: null, error: 'timed out after 300 ms' });
    receiver.release();
  });
  it('keeps the connection to a receiver open from one delivery to the next', async () => {
    const seller = await registerSeller(api);
    const endpoint = await endpointFor(seller);
    for (let i = 0; i < 3; i += 1) {
      const { eventId } = await listingEvent(seller);
      expect(await activities().attemptWebhookDelivery(input(eventId, endpoint.id))).toEqual({ outcome: 'delivered' });
    }
    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.received.map((r) => r.connection)).size).toBe(1);
  });

  it('sends once more on a new connection when the receiver closed the kept one, and only once', async () => {
    const seller = await registerSeller(api);
    const endpoint = await endpointFor(seller);
    const deliver = async () => {
      const { eventId } = await listingEvent(seller);
      const result = await activities().attemptWebhookDelivery(input(eventId, endpoint.id));
      const attempts = await q(
        `SELECT a.succeeded, a.status_code, a.error FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.event_id = $1`,
        [eventId],
      );
      return { result, attempts, connections: receiver.received.map((r) => r.connection) };
    };
    const ok = { status: 200, body: 'ok' };

    // The receiver drops the kept connection when the next request arrives on it, as one whose
    // idle timeout fired just as the request was sent would: the request goes again, once.
    await deliver();
    const kept = receiver.received[0]!.connection;
    receiver.received.length = 0;
    receiver.respond = (r) => (r.connection === kept ? 'drop' : ok);
    const retried = await deliver();
    expect(retried.result).toEqual({ outcome: 'delivered' });
    expect(retried.attempts).toEqual([{ succeeded: true, status_code: 200, error: null }]);
    expect(retried.connections).toHaveLength(2);
    expect(retried.connections[0]).toBe(kept);
    expect(retried.connections[1]).not.toBe(kept);

    // A receiver that drops every request: the new connection fails too, and that is the
    // attempt's failure (no third request).
    receiver.respond = () => ok;
    await deliver();
    receiver.received.length = 0;
    receiver.respond = () => 'drop';
    const dropped = await deliver();
    expect(dropped.result.outcome).toBe('retry');
    expect(dropped.connections).toHaveLength(2);
    expect(dropped.connections[0]).not.toBe(dropped.connections[1]);
    expect(dropped.attempts).toEqual([{ succeeded: false, status_code: null, error: expect.stringMatching(/socket hang up|ECONNRESET/) }]);
  });

  it('records an attempt that cannot even be sent (a stored header Node refuses) as failed, counting toward auto-disable', async () => {
    const seller = await registerSeller(api);
    const endpoint = await endpointFor(seller, { headers: { 'X-Shop': 'north' } });
    // Saved before the value rule existed: a character above U+00FF cannot be a header byte.
    await q(`UPDATE webhook_endpoints SET headers = $2, failing_since = now() - interval '6 days' WHERE id = $1`, [
      endpoint.id,
      { 'x-shop': 'nörth €' },
    ]);
    const { eventId } = await listingEvent(seller);

    const result = await activities().attemptWebhookDelivery(input(eventId, endpoint.id));
    expect(result.outcome).toBe('disabled');
    expect(receiver.received).toHaveLength(0);
    const [attempt] = await q(
      `SELECT a.succeeded, a.status_code, a.error FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.event_id = $1`,
      [eventId],
    );
    expect(attempt).toMatchObject({ succeeded: false, status_code: null, error: expect.stringMatching(/^not sent: .*header/i) });
    const [ep] = await q(`SELECT enabled, disabled_reason FROM webhook_endpoints WHERE id = $1`, [endpoint.id]);
    expect(ep).toEqual({ enabled: false, disabled_reason: 'FAILING' });
  });
});
