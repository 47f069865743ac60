import type { TestUser } from '../support/api';
import { registerUser } from '../support/api';
import { apiClient, dataOf, expectStatus, type JsonBody } from '../support/client';
import { checkoutUrl, fillBasket, pay, sellerWithListings } from '../support/shop';
import { startStack, type TestStack } from '../support/stack';

/**
 * `actions` and `deadlines` of orders and cases at each state, and the API refusing every action
 * a view does not list, on the whole system (the case actions go to the real case workflow).
 */
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(() => stack?.stop());

const DAY = 86_400_000;
const refused = (res: { response: Response }) => expect([400, 404, 409]).toContain(res.response.status);
/**
 * A body the document does not allow on that route (an action the route's enum leaves out): sent
 * anyway, to see the API refuse it.
 */
const outsideTheDocument = <T>(body: object) => body as T;
const plus = (iso: string, ms: number) => new Date(new Date(iso).getTime() + ms).toISOString();

describe('next actions and deadlines', () => {
  let seller: TestUser;
  let buyer: TestUser;
  let purchaseId: string;
  let orderId: string;
  let itemId: string;
  const sellerOrder = () => dataOf(apiClient(stack.api, seller.bearer).GET('/seller/orders/{id}', { params: { path: { id: orderId } } }));
  const buyerOrder = async () =>
    (await dataOf(apiClient(stack.api, buyer.bearer).GET('/user/purchases/{id}', { params: { path: { id: purchaseId } } }))).orders[0]!;
  const sellerAct = (body: JsonBody<'/seller/orders/{id}', 'post'>) =>
    apiClient(stack.api, seller.bearer).POST('/seller/orders/{id}', { params: { path: { id: orderId } }, body });
  const buyerAct = (body: JsonBody<'/user/purchases/{id}', 'put'>) =>
    apiClient(stack.api, buyer.bearer).PUT('/user/purchases/{id}', { params: { path: { id: purchaseId } }, body });
  const ship = () =>
    sellerAct({ action: 'ship', shipment: { carrier: 'RM', trackingNumber: 'RM1' }, items: [{ id: itemId, quantity: 1 }] });

  it("orders: ACCEPTED → SHIPPED → RECEIVED, each party's actions and the automatic-receipt deadline", async () => {
    const { api } = stack;
    const bought = await sellerWithListings(api, [{ quantity: 1, price: 1200 }]);
    seller = bought.seller;
    buyer = await registerUser(api, 'nabuyer');
    const basketId = await fillBasket(api, buyer, [{ listingId: bought.listingIds[0]! }]);
    purchaseId = await pay(api, await checkoutUrl(api, buyer, basketId));
    orderId = (await dataOf(apiClient(api, seller.bearer).GET('/seller/orders')))[0]!.id;
    const accepted = await sellerOrder();
    itemId = accepted.items[0]!.id;

    // ACCEPTED: before shipment the seller may cancel and the buyer ask to.
    expect(accepted).toMatchObject({ status: 'ACCEPTED', actions: ['ship', 'dispute', 'cancel'], deadlines: { autoReceiptAt: null } });
    // Whose move, by when: the seller ships within 3 days; both parties see the same.
    expect(accepted.nextActions).toEqual([{ party: 'SELLER', action: 'ship', dueAt: plus(accepted.createdAt, 3 * DAY), afterDue: null }]);
    expect((await buyerOrder()).nextActions).toEqual(accepted.nextActions);
    expect(await buyerOrder()).toMatchObject({ actions: ['dispute', 'request-cancel'], deadlines: { autoReceiptAt: null } });
    refused(await buyerAct({ action: 'receive', orderId })); // not listed for the buyer
    refused(await sellerAct(outsideTheDocument({ action: 'receive' }))); // never the seller's

    // SHIPPED: the buyer may receive; automatic receipt 21 days after shipping.
    await expectStatus(ship(), 204);
    const shipped = await sellerOrder();
    expect(shipped).toMatchObject({ status: 'SHIPPED', actions: ['dispute'] });
    const [{ shipped_at }] = await api.database.db.query(`SELECT shipped_at FROM orders WHERE id = $1`, [orderId]);
    expect(shipped.deadlines.autoReceiptAt).toBe(plus(shipped_at.toISOString(), 21 * DAY));
    expect(await buyerOrder()).toMatchObject({
      actions: ['receive', 'dispute'],
      deadlines: { autoReceiptAt: shipped.deadlines.autoReceiptAt },
      nextActions: [
        { party: 'BUYER', action: 'receive', dueAt: shipped.deadlines.autoReceiptAt, afterDue: 'The order is received automatically.' },
      ],
    });
    refused(await ship());

    // RECEIVED
    await expectStatus(buyerAct({ action: 'receive', orderId }), 200);
    expect(await sellerOrder()).toMatchObject({
      status: 'RECEIVED',
      actions: ['dispute'],
      nextActions: [],
      deadlines: { autoReceiptAt: null },
    });
    expect(await buyerOrder()).toMatchObject({ actions: ['dispute'], deadlines: { autoReceiptAt: null } });
    refused(await buyerAct({ action: 'receive', orderId }));
    refused(await ship());
    const purchase = await dataOf(apiClient(api, buyer.bearer).GET('/user/purchases/{id}', { params: { path: { id: purchaseId } } }));
    expect(purchase.status).toBe('COMPLETED');
    expect(purchase.deadlines.reviewWindowClosesAt).toBe(plus(purchase.completedAt!, 14 * DAY));
  }, 120_000);

  it("cases: OPEN → proposal → SETTLED → CLOSED, each party's actions and the escalation deadline; everything else refused", async () => {
    const { api } = stack;
    await expectStatus(buyerAct({ action: 'dispute', orderId, reason: 'SNAD', items: [{ id: itemId, quantity: 1 }] }), 200);
    const cases = await dataOf(apiClient(api, seller.bearer).GET('/seller/cases'));
    expect(cases).toMatchObject({ total: 1, page: 1, size: 20 });
    const [opened] = cases.items;
    const id = opened!.id;
    const theCase = { params: { path: { id } } };
    const asSeller = () => dataOf(apiClient(api, seller.bearer).GET('/seller/cases/{id}', theCase));
    const asBuyer = () => dataOf(apiClient(api, buyer.bearer).GET('/user/cases/{id}', theCase));
    const sellerDo = (body: JsonBody<'/seller/cases/{id}', 'put'>) =>
      apiClient(api, seller.bearer).PUT('/seller/cases/{id}', { ...theCase, body });
    const buyerDo = (body: JsonBody<'/user/cases/{id}', 'put'>) =>
      apiClient(api, buyer.bearer).PUT('/user/cases/{id}', { ...theCase, body });
    const proposal = {
      action: 'propose',
      type: 'RETURN',
      amount: 1200,
      comment: 'Send it back',
      deliveryAddress: { name: 'Shop', line1: '1 Road', city: 'Leeds', postal_code: 'LS1 1AA', country: 'GB' },
    } as const;

    // OPEN, nothing proposed: both may propose or escalate; 7 days to automatic escalation.
    expect(opened).toMatchObject({
      status: 'OPEN',
      actions: ['propose', 'escalate'],
      deadlines: { escalatesAt: plus(opened!.createdAt, 7 * DAY) },
    });
    expect(await asBuyer()).toMatchObject({ actions: ['propose', 'escalate'] });
    const escalates = 'The case escalates to an operator, who decides it.';
    expect(opened!.nextActions).toEqual([
      { party: 'BUYER', action: 'propose', dueAt: opened!.deadlines.escalatesAt, afterDue: escalates },
      { party: 'SELLER', action: 'propose', dueAt: opened!.deadlines.escalatesAt, afterDue: escalates },
    ]);
    refused(await sellerDo({ action: 'resolve' }));
    refused(await buyerDo(outsideTheDocument({ action: 'resolve' })));
    refused(await sellerDo({ action: 'accept', outcomeId: id }));
    refused(await buyerDo({ action: 'reject', outcomeId: id }));

    // The seller proposes a return: only the buyer may answer it.
    const outcomeId = (await dataOf(sellerDo(proposal))).outcomes[0]!.id;
    expect(await asSeller()).toMatchObject({ status: 'OPEN', actions: ['propose', 'escalate'] });
    expect(await asBuyer()).toMatchObject({
      actions: ['propose', 'accept', 'reject', 'escalate'],
      nextActions: [{ party: 'BUYER', action: 'accept', dueAt: opened!.deadlines.escalatesAt, afterDue: escalates }],
    });
    refused(await sellerDo({ action: 'accept', outcomeId }));
    refused(await sellerDo({ action: 'reject', outcomeId }));

    // The buyer accepts: SETTLED, only the seller's resolve is left, no clock runs.
    await expectStatus(buyerDo({ action: 'accept', outcomeId }), 200);
    expect(await asSeller()).toMatchObject({
      status: 'SETTLED',
      actions: ['resolve'],
      nextActions: [{ party: 'SELLER', action: 'resolve', dueAt: null, afterDue: null }],
      deadlines: { escalatesAt: null },
    });
    expect(await asBuyer()).toMatchObject({ status: 'SETTLED', actions: [], deadlines: { escalatesAt: null } });
    for (const body of [proposal, { action: 'escalate' }, { action: 'accept', outcomeId }, { action: 'reject', outcomeId }] as const) {
      refused(await buyerDo(body));
      refused(await sellerDo(body));
    }

    // The seller resolves: CLOSED, nothing left to anyone.
    await expectStatus(sellerDo({ action: 'resolve' }), 200);
    expect(await asSeller()).toMatchObject({ status: 'CLOSED', actions: [], deadlines: { escalatesAt: null } });
    expect(await asBuyer()).toMatchObject({ actions: [] });
    for (const body of [proposal, { action: 'escalate' }, { action: 'resolve' }] as const) refused(await sellerDo(body));
    for (const body of [proposal, { action: 'escalate' }] as const) refused(await buyerDo(body));
    expect((await asBuyer()).nextActions).toEqual([]);
  }, 120_000);

  it('an escalated case: an operator decides, by a date both parties see', async () => {
    const { api } = stack;
    // The unit is out of its closed case: the buyer disputes it again and escalates at once.
    await expectStatus(buyerAct({ action: 'dispute', orderId, reason: 'DAMAGED', items: [{ id: itemId, quantity: 1 }] }), 200);
    const cases = await dataOf(apiClient(api, buyer.bearer).GET('/user/cases'));
    const id = cases.find((c) => c.status === 'OPEN')!.id;
    const theCase = { params: { path: { id } } };
    await expectStatus(apiClient(api, buyer.bearer).PUT('/user/cases/{id}', { ...theCase, body: { action: 'escalate' } }), 200);
    const escalated = await dataOf(apiClient(api, seller.bearer).GET('/seller/cases/{id}', theCase));
    const [{ escalated_at }] = await api.database.db.query(`SELECT escalated_at FROM cases WHERE id = $1`, [id]);
    expect(escalated).toMatchObject({ status: 'ESCALATED', deadlines: { escalatesAt: null } });
    expect(escalated.nextActions).toEqual([
      { party: 'OPERATOR', action: 'decide', dueAt: plus(escalated_at.toISOString(), 3 * DAY), afterDue: null },
    ]);
    expect((await dataOf(apiClient(api, buyer.bearer).GET('/user/cases/{id}', theCase))).nextActions).toEqual(escalated.nextActions);
  }, 120_000);
});
