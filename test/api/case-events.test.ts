import { randomUUID } from 'node:crypto';
import { NoCaseWebhookEvents1733564000000 } from '../../src/db/migrations/1733564000000-no-case-webhook-events';
import { newId } from '../../src/ids';
import { recordCaseChange } from '../../src/services/cases/case-changes';
import { caseChangeStarts } from '../../src/modules/cases';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertCase, insertPaidOrder } from '../support/cases';

// Case changes are internal side effects, not webhook events (the interface says so; docs/webhooks.md):
// no subscription to them, nothing in the webhook outbox when a case opens or changes, and
// subscriptions made before drop them.
let api: TestApi;
let buyer: TestUser;
let seller: TestUser;
beforeAll(async () => {
  api = await startTestApi();
  [buyer, seller] = await Promise.all([registerUser(api, 'cebuyer'), registerSeller(api, 'ceseller')]);
});
afterAll(() => api.close());

const events = (sellerId: string): Promise<Array<{ type: string }>> =>
  api.database.db.query(`SELECT type FROM outbox_events WHERE seller_id = $1 AND type LIKE 'CASE_%'`, [sellerId]);

describe('case changes and webhooks', () => {
  it('refuses a subscription to CASE_OPENED or CASE_UPDATED as an unknown event type', async () => {
    for (const type of ['CASE_OPENED', 'CASE_UPDATED']) {
      const res = await api.http
        .post('/seller/webhooks')
        .set(seller.bearer)
        .send({ url: 'https://hooks.example.com/cases', subscriptions: [type] })
        .expect(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'subscriptions.0' })]);
    }
  });

  it('writes no case event to the webhook outbox when a case opens or changes', async () => {
    const order = await insertPaidOrder(api.database.db, buyer.id, seller.id);
    const { caseId } = await insertCase(api.database.db, order.orderId, 'BUYER', {
      reason: 'WRONG_ITEM',
      items: [{ id: order.itemIds[0]!, quantity: 1 }],
    });
    await recordCaseChange(
      api.database.db,
      { caseId, changeId: randomUUID(), actor: 'SELLER', kind: 'escalate', status: 'ESCALATED', outcomes: [] },
      { reviewWindowSeconds: 60, ...caseChangeStarts },
    );
    await recordCaseChange(
      api.database.db,
      { caseId, changeId: randomUUID(), actor: 'OPERATOR', kind: 'operator-close', status: 'CLOSED', outcomes: [] },
      { reviewWindowSeconds: 60, ...caseChangeStarts },
    );
    const [row] = await api.database.db.query(`SELECT status FROM cases WHERE id = $1`, [caseId]);
    expect(row.status).toBe('CLOSED');
    expect(await events(seller.id)).toEqual([]);
  });

  it('drops case events from subscriptions made before, and case events not yet fanned out', async () => {
    const db = api.database.db;
    const endpointId = newId();
    await db.query(
      `INSERT INTO webhook_endpoints (id, seller_id, url, enabled, secret_encrypted, subscriptions)
       VALUES ($1, $2, 'https://hooks.example.com/old', true, 'x', ARRAY['ORDER_CREATED', 'CASE_OPENED', 'CASE_UPDATED'])`,
      [endpointId, seller.id],
    );
    await db.query(`INSERT INTO outbox_events (id, seller_id, type, data) VALUES ($1, $2, 'CASE_OPENED', '{}')`, [newId(), seller.id]);
    await new NoCaseWebhookEvents1733564000000().up(db.createQueryRunner());
    const [endpoint] = await db.query(`SELECT subscriptions FROM webhook_endpoints WHERE id = $1`, [endpointId]);
    expect(endpoint.subscriptions).toEqual(['ORDER_CREATED']);
    expect(await events(seller.id)).toEqual([]);
  });
});
