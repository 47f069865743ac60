import { MAX_ENDPOINTS_PER_SELLER } from '../../src/services/webhooks/rules';
import { decryptSecret } from '../../src/services/webhooks/signing';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';

let api: TestApi;
beforeAll(async () => {
  // No Temporal and no dispatcher here: deliveries wait in the start outbox, asserted below.
  api = await startTestApi();
});
afterAll(() => api.close());

const RECEIVER = 'https://hooks.example.com/marketplace';

function create(seller: TestUser, body: Record<string, unknown> = {}) {
  return api.http
    .post('/seller/webhooks')
    .set(seller.bearer)
    .send({ url: RECEIVER, ...body });
}

describe('webhook endpoint management', () => {
  it('creates a disabled endpoint, returns its secret once and stores it encrypted', async () => {
    const seller = await registerSeller(api);
    const res = await create(seller, {
      description: 'ERP',
      enabled: false,
      subscriptions: ['LISTING_CREATED', 'LISTING_CREATED', 'ORDER_CREATED'],
      headers: { 'X-Shop': 'north' },
    });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({
      url: RECEIVER,
      description: 'ERP',
      enabled: false,
      disabledReason: 'MANUAL',
      subscriptions: ['LISTING_CREATED', 'ORDER_CREATED'],
      headers: { 'x-shop': 'north' },
    });
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const [row] = await api.database.db.query('SELECT secret_encrypted FROM webhook_endpoints WHERE id = $1', [res.body.id]);
    expect(row.secret_encrypted).not.toContain(res.body.secret.slice(6));
    expect(decryptSecret(api.config.webhooks.secretKey, row.secret_encrypted)).toBe(res.body.secret);

    const list = await api.http.get('/seller/webhooks').set(seller.bearer).expect(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0].secret).toBeUndefined();
    const one = await api.http.get(`/seller/webhooks/${res.body.id}`).set(seller.bearer).expect(200);
    expect(one.body.secret).toBeUndefined();
  });

  it('updates fields, replaces subscriptions, enables and rotates the secret', async () => {
    const seller = await registerSeller(api);
    const { body: endpoint } = await create(seller, { enabled: false });
    const patched = await api.http
      .patch(`/seller/webhooks/${endpoint.id}`)
      .set(seller.bearer)
      .send({ url: 'https://other.example.com/hook', headers: { Authorization: 'Bearer abc' }, enabled: true })
      .expect(200);
    expect(patched.body).toMatchObject({
      url: 'https://other.example.com/hook',
      headers: { authorization: 'Bearer abc' },
      enabled: true,
      disabledReason: null,
    });

    const subs = await api.http
      .put(`/seller/webhooks/${endpoint.id}/subscriptions`)
      .set(seller.bearer)
      .send({ subscriptions: ['ORDER_UPDATED'] })
      .expect(200);
    expect(subs.body.subscriptions).toEqual(['ORDER_UPDATED']);

    const rotated = await api.http.post(`/seller/webhooks/${endpoint.id}/secret`).set(seller.bearer).expect(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    const [row] = await api.database.db.query('SELECT secret_encrypted FROM webhook_endpoints WHERE id = $1', [endpoint.id]);
    expect(decryptSecret(api.config.webhooks.secretKey, row.secret_encrypted)).toBe(rotated.body.secret);
  });

  it('accepts a personal access token (spec: webhook management takes both token kinds)', async () => {
    const seller = await registerSeller(api);
    const pat = await api.http.post('/user/personal-access-tokens').set(seller.bearer).send({ name: 'automation' }).expect(201);
    const res = await api.http
      .post('/seller/webhooks')
      .set({ Authorization: `ApiKey ${pat.body.token}` })
      .send({ url: RECEIVER });
    expect(res.status).toBe(201);
    await api.http
      .get('/seller/webhooks')
      .set({ Authorization: `ApiKey ${pat.body.token}` })
      .expect(200);
  });

  it('rejects bad input with every failing field, and changes nothing', async () => {
    const seller = await registerSeller(api);
    const res = await create(seller, {
      url: 'ftp://example.com/x',
      subscriptions: ['LISTING_CREATED', 'TEST_WEBHOOK'],
      headers: { 'bad name': 'x' },
    });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('/problems/validation-failed');
    const fields = res.body.errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['subscriptions.1', 'headers.bad name']));

    const reserved = await create(seller, {
      headers: { 'Webhook-Signature': 'v1,forged', 'Content-Type': 'text/plain', 'X-Ok': 'a\r\nX-Injected: 1' },
    });
    expect(reserved.status).toBe(400);
    expect(reserved.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'headers.Content-Type',
      'headers.Webhook-Signature',
      'headers.X-Ok',
    ]);
    const scheme = await create(seller, { url: 'ftp://example.com/x' });
    expect(scheme.status).toBe(400);
    expect(scheme.body.errors[0].field).toBe('url');

    const empty = await api.http.patch('/seller/webhooks/0190d7b0-0000-7000-8000-000000000000').set(seller.bearer).send({});
    expect(empty.status).toBe(400);
    const [{ count }] = await api.database.db.query('SELECT count(*)::int AS count FROM webhook_endpoints WHERE seller_id = $1', [
      seller.id,
    ]);
    expect(count).toBe(0);
  });

  it("answers 404 for another seller's endpoint on every route, and for malformed ids", async () => {
    const owner = await registerSeller(api);
    const intruder = await registerSeller(api);
    const { body: endpoint } = await create(owner);
    const base = `/seller/webhooks/${endpoint.id}`;
    const attempts = [
      api.http.get(base),
      api.http.patch(base).send({ description: 'mine now' }),
      api.http.put(`${base}/subscriptions`).send({ subscriptions: [] }),
      api.http.post(`${base}/secret`),
      api.http.post(`${base}/test`),
      api.http.get(`${base}/metrics`),
      api.http.get(`${base}/failures`),
      api.http.post(`${base}/deliveries/${endpoint.id}/replay`),
      api.http.delete(base),
    ];
    for (const request of attempts) {
      const res = await request.set(intruder.bearer);
      expect(res.status).toBe(404);
    }
    await api.http.get('/seller/webhooks/not-a-uuid').set(owner.bearer).expect(404);
    const still = await api.http.get(base).set(owner.bearer).expect(200);
    expect(still.body.description).toBe('');
  });

  it('deletes permanently: 204, then 404', async () => {
    const seller = await registerSeller(api);
    const { body: endpoint } = await create(seller);
    const res = await api.http.delete(`/seller/webhooks/${endpoint.id}`).set(seller.bearer);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    await api.http.delete(`/seller/webhooks/${endpoint.id}`).set(seller.bearer).expect(404);
    await api.http.get(`/seller/webhooks/${endpoint.id}`).set(seller.bearer).expect(404);
  });

  it(`limits a seller to ${MAX_ENDPOINTS_PER_SELLER} endpoints`, async () => {
    const seller = await registerSeller(api);
    for (let i = 0; i < MAX_ENDPOINTS_PER_SELLER; i++) await create(seller).expect(201);
    const res = await create(seller);
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('/problems/webhook-limit-reached');
  });

  it('requires a seller account', async () => {
    const user = await registerUser(api);
    const res = await api.http.get('/seller/webhooks').set(user.bearer);
    expect(res.status).toBe(403);
    expect(res.body.type).toBe('/problems/seller-account-required');
  });

  it('accepts a test delivery while Temporal is unreachable: the delivery waits in the start outbox', async () => {
    const seller = await registerSeller(api);
    const { body: endpoint } = await create(seller);
    const res = await api.http.post(`/seller/webhooks/${endpoint.id}/test`).set(seller.bearer).expect(202);
    const intents = await api.database.db.query(`SELECT workflow_type, args, started_at FROM workflow_starts WHERE workflow_id = $1`, [
      `webhook:${res.body.eventId}:${endpoint.id}`,
    ]);
    expect(intents).toEqual([
      {
        workflow_type: 'webhookDeliveryWorkflow',
        args: [
          {
            eventId: res.body.eventId,
            endpointId: endpoint.id,
            policy: expect.objectContaining({ retryScheduleMs: api.config.webhooks.retryScheduleMs }),
          },
        ],
        started_at: null,
      },
    ]);
  });

  it('reports empty metrics and failures for a new endpoint; rejects an unknown window', async () => {
    const seller = await registerSeller(api);
    const { body: endpoint } = await create(seller);
    const metrics = await api.http.get(`/seller/webhooks/${endpoint.id}/metrics?window=7d`).set(seller.bearer).expect(200);
    expect(metrics.body).toEqual({
      window: '7d',
      deliveries: { total: 0, succeeded: 0, failed: 0, pending: 0 },
      successRate: null,
      attempts: { total: 0, failed: 0 },
      latencyMs: { p50: null, p90: null, p99: null },
    });
    await api.http.get(`/seller/webhooks/${endpoint.id}/metrics?window=2y`).set(seller.bearer).expect(400);
    const failures = await api.http.get(`/seller/webhooks/${endpoint.id}/failures?size=5`).set(seller.bearer).expect(200);
    expect(failures.body).toEqual({ items: [], page: 1, size: 5, total: 0 });
    await api.http.get(`/seller/webhooks/${endpoint.id}/failures?size=500`).set(seller.bearer).expect(400);
  });
});
