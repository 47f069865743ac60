import { registerUser, type TestUser } from '../support/api';
import { apiClient, dataOf, expectStatus } from '../support/client';
import { boughtOrder as bought, checkoutUrl, fillBasket, sellerWithListings, settle } from '../support/shop';
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

const boughtOrder = () => bought(stack.api, { buyerPrefix: 'e2eopbuyer' });

describe('operators end to end', () => {
  it('decides an escalated case through the operatorDecision Update, refuses other cases, and audits it', async () => {
    const { api } = stack;
    const { seller, order } = await boughtOrder();
    const asSeller = apiClient(api, seller.bearer);
    const asOperator = apiClient(api, operator.bearer);
    await expectStatus(
      asSeller.POST('/seller/orders/{id}', {
        params: { path: { id: order.id } },
        body: { action: 'dispute', reason: 'NOT_RECEIVED', items: [{ id: order.items[0]!.id, quantity: 1 }] },
      }),
      204,
    );
    const sellerCases = await dataOf(asSeller.GET('/seller/cases'));
    expect(sellerCases).toMatchObject({ total: 1, page: 1, size: 20 });
    const [opened] = sellerCases.items;
    const theCase = { params: { path: { id: opened!.id } } };

    // Not escalated yet: the workflow's validator refuses the decision, nothing is audited.
    const early = await expectStatus(
      asOperator.POST('/operator/cases/{id}/decision', { ...theCase, body: { decision: 'close', reason: 'too early' } }),
      409,
    );
    expect(early.error!.type).toBe('/problems/case-not-escalated');

    await expectStatus(asSeller.PUT('/seller/cases/{id}', { ...theCase, body: { action: 'escalate' } }), 200);
    const escalated = await dataOf(
      asOperator.GET('/operator/cases', { params: { query: { status: ['ESCALATED'], sellerId: seller.id } } }),
    );
    expect(escalated.items.map((c) => c.id)).toEqual([opened!.id]);
    expect(escalated).toMatchObject({ total: 1, page: 1, size: 20 });

    const decided = await dataOf(
      asOperator.POST('/operator/cases/{id}/decision', {
        ...theCase,
        body: { decision: 'remediate', reason: 'Tracking shows no delivery; parties to agree a refund' },
      }),
    );
    expect(decided).toMatchObject({ id: opened!.id, status: 'REMEDIATION', sellerId: seller.id });
    expect((await dataOf(asSeller.GET('/seller/cases/{id}', theCase))).status).toBe('REMEDIATION');

    const audit = await dataOf(
      asOperator.GET('/operator/audit-log', { params: { query: { subjectType: 'case', subjectId: opened!.id } } }),
    );
    expect(audit).toEqual({
      items: [
        expect.objectContaining({
          operatorId: operator.id,
          action: 'case.decide',
          reason: 'Tracking shows no delivery; parties to agree a refund',
          detail: { decision: 'remediate', from: 'ESCALATED', to: 'REMEDIATION' },
        }),
      ],
      total: 1,
      page: 1,
      size: 20,
    });
  }, 120_000);

  it('suspending a seller refuses the payment of a checkout already holding their listing, and frees its units', async () => {
    const { api } = stack;
    const { seller, listingIds } = await sellerWithListings(api, [{ quantity: 1, price: 700 }]);
    const buyer = await registerUser(api, 'e2eopbuyer');
    const basketId = await fillBasket(api, buyer, [{ listingId: listingIds[0]! }]);
    const url = await checkoutUrl(api, buyer, basketId);
    const reserved = async () => (await api.database.db.query(`SELECT reserved FROM listings WHERE id = $1`, [listingIds[0]]))[0].reserved;
    expect(await reserved()).toBe(1);

    await expectStatus(
      apiClient(api, operator.bearer).POST('/operator/sellers/{id}/suspend', {
        params: { path: { id: seller.id } },
        body: { reason: 'Chargebacks' },
      }),
      200,
    );
    expect(await reserved()).toBe(0);
    const paid = await expectStatus(settle(api, url, 'success'), 409);
    expect(paid.error!.type).toBe('/problems/checkout-closed');
    const purchases = await dataOf(apiClient(api, buyer.bearer).GET('/user/purchases'));
    expect(purchases).toEqual({ items: [], total: 0, page: 1, size: 20 });
  }, 120_000);

  it('refuses the payment when the seller was suspended after the checkout was priced (the commit checks the seller)', async () => {
    const { api } = stack;
    const { seller, listingIds } = await sellerWithListings(api, [{ quantity: 1, price: 700 }]);
    const buyer = await registerUser(api, 'e2eopbuyer');
    const basketId = await fillBasket(api, buyer, [{ listingId: listingIds[0]! }]);
    const url = await checkoutUrl(api, buyer, basketId);
    // As a suspension racing this checkout leaves it: the seller suspended, the session still open.
    await api.database.db.query(`UPDATE seller_accounts SET status = 'SUSPENDED' WHERE user_id = $1`, [seller.id]);
    const paid = await expectStatus(settle(api, url, 'success'), 409);
    expect(paid.error).toMatchObject({ type: '/problems/listings-unavailable', listingIds });
    expect(await dataOf(apiClient(api, buyer.bearer).GET('/user/purchases'))).toEqual({ items: [], total: 0, page: 1, size: 20 });
  }, 120_000);
});
