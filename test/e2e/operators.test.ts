import { registerUser, type TestUser } from '../support/api';
import { fillBasket, pay, payPath, sellerWithListings } from '../support/shop';
import { startStack, type TestStack } from '../support/stack';

/** Operator actions that reach the case workflow and open checkouts, on the whole system. */
let stack: TestStack;
let operator: TestUser;
beforeAll(async () => {
  stack = await startStack();
  operator = await registerUser(stack.api, 'e2eoperator');
  await stack.api.services.operatorRoles.grant(operator.username, 'test');
}, 120_000);
afterAll(() => stack?.stop());

async function boughtOrder() {
  const { api } = stack;
  const { seller, listingIds } = await sellerWithListings(api, [{ quantity: 2, price: 1500 }]);
  const buyer = await registerUser(api, 'e2eopbuyer');
  const basketId = await fillBasket(api, buyer, [{ listingId: listingIds[0]! }]);
  const checkout = await api.http
    .post(`/basket/${basketId}/checkout`)
    .set(buyer.bearer)
    .send({ successUrl: 'https://shop.example/ok' })
    .expect(201);
  const purchaseId = await pay(api, checkout.body.url);
  const purchase = await api.http.get(`/user/purchases/${purchaseId}`).set(buyer.bearer).expect(200);
  return { seller, buyer, purchaseId, order: purchase.body.orders[0] };
}

describe('operators end to end', () => {
  it('decides an escalated case through the operatorDecision Update, refuses other cases, and audits it', async () => {
    const { api } = stack;
    const { seller, order } = await boughtOrder();
    await api.http
      .post(`/seller/orders/${order.id}`)
      .set(seller.bearer)
      .send({ action: 'dispute', reason: 'NOT_RECEIVED', items: [{ id: order.items[0].id, quantity: 1 }] })
      .expect(204);
    const [opened] = (await api.http.get('/seller/cases').set(seller.bearer).expect(200)).body;

    // Not escalated yet: the workflow's validator refuses the decision, nothing is audited.
    const early = await api.http
      .post(`/operator/cases/${opened.id}/decision`)
      .set(operator.bearer)
      .send({ decision: 'close', reason: 'too early' })
      .expect(409);
    expect(early.body.type).toBe('/problems/case-not-escalated');

    await api.http.put(`/seller/cases/${opened.id}`).set(seller.bearer).send({ action: 'escalate' }).expect(200);
    const escalated = (await api.http.get(`/operator/cases?status=ESCALATED&sellerId=${seller.id}`).set(operator.bearer).expect(200)).body;
    expect(escalated.map((c: { id: string }) => c.id)).toEqual([opened.id]);

    const decided = await api.http
      .post(`/operator/cases/${opened.id}/decision`)
      .set(operator.bearer)
      .send({ decision: 'remediate', reason: 'Tracking shows no delivery; parties to agree a refund' })
      .expect(200);
    expect(decided.body).toMatchObject({ id: opened.id, status: 'REMEDIATION', sellerId: seller.id });
    expect((await api.http.get(`/seller/cases/${opened.id}`).set(seller.bearer).expect(200)).body.status).toBe('REMEDIATION');

    const audit = (await api.http.get(`/operator/audit-log?subjectType=case&subjectId=${opened.id}`).set(operator.bearer).expect(200)).body;
    expect(audit).toEqual([
      expect.objectContaining({
        operatorId: operator.id,
        action: 'case.decide',
        reason: 'Tracking shows no delivery; parties to agree a refund',
        detail: { decision: 'remediate', from: 'ESCALATED', to: 'REMEDIATION' },
      }),
    ]);
  }, 120_000);

  it('suspending a seller refuses the payment of a checkout already holding their listing, and frees its units', async () => {
    const { api } = stack;
    const { seller, listingIds } = await sellerWithListings(api, [{ quantity: 1, price: 700 }]);
    const buyer = await registerUser(api, 'e2eopbuyer');
    const basketId = await fillBasket(api, buyer, [{ listingId: listingIds[0]! }]);
    const checkout = await api.http
      .post(`/basket/${basketId}/checkout`)
      .set(buyer.bearer)
      .send({ successUrl: 'https://shop.example/ok' })
      .expect(201);
    const reserved = async () => (await api.database.db.query(`SELECT reserved FROM listings WHERE id = $1`, [listingIds[0]]))[0].reserved;
    expect(await reserved()).toBe(1);

    await api.http.post(`/operator/sellers/${seller.id}/suspend`).set(operator.bearer).send({ reason: 'Chargebacks' }).expect(200);
    expect(await reserved()).toBe(0);
    const paid = await api.http.post(payPath(checkout.body.url)).type('form').send({ outcome: 'success' }).expect(409);
    expect(paid.body.type).toBe('/problems/checkout-closed');
    const purchases = (await api.http.get('/user/purchases').set(buyer.bearer).expect(200)).body;
    expect(purchases).toEqual([]);
  }, 120_000);

  it('refuses the payment when the seller was suspended after the checkout was priced (the commit checks the seller)', async () => {
    const { api } = stack;
    const { seller, listingIds } = await sellerWithListings(api, [{ quantity: 1, price: 700 }]);
    const buyer = await registerUser(api, 'e2eopbuyer');
    const basketId = await fillBasket(api, buyer, [{ listingId: listingIds[0]! }]);
    const checkout = await api.http
      .post(`/basket/${basketId}/checkout`)
      .set(buyer.bearer)
      .send({ successUrl: 'https://shop.example/ok' })
      .expect(201);
    // As a suspension racing this checkout leaves it: the seller suspended, the session still open.
    await api.database.db.query(`UPDATE seller_accounts SET status = 'SUSPENDED' WHERE user_id = $1`, [seller.id]);
    const paid = await api.http.post(payPath(checkout.body.url)).type('form').send({ outcome: 'success' }).expect(409);
    expect(paid.body).toMatchObject({ type: '/problems/listings-unavailable', listingIds });
    expect((await api.http.get('/user/purchases').set(buyer.bearer).expect(200)).body).toEqual([]);
  }, 120_000);
});
