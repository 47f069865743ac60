import { randomUUID } from 'node:crypto';
import { recordCaseChange } from '../../src/services/cases/case-changes';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertCase, insertPaidOrder } from '../support/cases';

// CASE_OPENED / CASE_UPDATED reach the seller's webhook outbox in the transaction of the change:
// the case opening path and the case workflow's recording activity are called as they run.
let api: TestApi;
let buyer: TestUser;
let seller: TestUser;
beforeAll(async () => {
  api = await startTestApi();
  [buyer, seller] = await Promise.all([registerUser(api, 'cebuyer'), registerSeller(api, 'ceseller')]);
});
afterAll(() => api.close());

const events = (sellerId: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> =>
  api.database.db.query(`SELECT type, data FROM outbox_events WHERE seller_id = $1 AND type LIKE 'CASE_%' ORDER BY created_at, id`, [
    sellerId,
  ]);

describe('case webhook events', () => {
  it('lets sellers subscribe to CASE_OPENED and CASE_UPDATED', async () => {
    const res = await api.http
      .post('/seller/webhooks')
      .set(seller.bearer)
      .send({ url: 'https://hooks.example.com/cases', subscriptions: ['CASE_OPENED', 'CASE_UPDATED'] })
      .expect(201);
    expect(res.body.subscriptions).toEqual(['CASE_OPENED', 'CASE_UPDATED']);
    await api.http
      .post('/seller/webhooks')
      .set(seller.bearer)
      .send({ url: 'https://hooks.example.com/x', subscriptions: ['CASE_CLOSED'] })
      .expect(400);
  });

  it('emits CASE_OPENED when a case opens and CASE_UPDATED with the new status on every change', async () => {
    const order = await insertPaidOrder(api.database.db, buyer.id, seller.id);
    const { caseId } = await insertCase(api.database.db, order.orderId, 'BUYER', {
      reason: 'WRONG_ITEM',
      items: [{ id: order.itemIds[0]!, quantity: 1 }],
    });
    const common = { sellerId: seller.id, caseId, orderId: order.orderId, purchaseId: order.purchaseId, reason: 'WRONG_ITEM' };
    expect(await events(seller.id)).toEqual([{ type: 'CASE_OPENED', data: { ...common, status: 'OPEN', createdAt: expect.any(String) } }]);

    await recordCaseChange(
      api.database.db,
      { caseId, changeId: randomUUID(), actor: 'SELLER', kind: 'escalate', status: 'ESCALATED', outcomes: [] },
      { reviewWindowSeconds: 60 },
    );
    const changeId = randomUUID();
    await recordCaseChange(
      api.database.db,
      { caseId, changeId, actor: 'OPERATOR', kind: 'operator-close', status: 'CLOSED', outcomes: [] },
      { reviewWindowSeconds: 60 },
    );
    // A retried write of the same change emits nothing more.
    await recordCaseChange(
      api.database.db,
      { caseId, changeId, actor: 'OPERATOR', kind: 'operator-close', status: 'CLOSED', outcomes: [] },
      { reviewWindowSeconds: 60 },
    );

    expect((await events(seller.id)).slice(1)).toEqual([
      { type: 'CASE_UPDATED', data: { ...common, status: 'ESCALATED', change: 'escalate', createdAt: expect.any(String) } },
      { type: 'CASE_UPDATED', data: { ...common, status: 'CLOSED', change: 'operator-close', createdAt: expect.any(String) } },
    ]);
  });
});
