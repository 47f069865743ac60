import type supertest from 'supertest';
import type { TestUser } from '../support/api';
import { registerUser } from '../support/api';
import { fillBasket, pay, sellerWithListings } from '../support/shop';
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
const refused = (res: supertest.Response) => expect([400, 404, 409]).toContain(res.status);
const plus = (iso: string, ms: number) => new Date(new Date(iso).getTime() + ms).toISOString();

describe('next actions and deadlines', () => {
  let seller: TestUser;
  let buyer: TestUser;
  let purchaseId: string;
  let orderId: string;
  let itemId: string;
  const sellerOrder = async () => (await stack.api.http.get(`/seller/orders/${orderId}`).set(seller.bearer).expect(200)).body;
  const buyerOrder = async () => (await stack.api.http.get(`/user/purchases/${purchaseId}`).set(buyer.bearer).expect(200)).body.orders[0];
  const sellerAct = (body: object) => stack.api.http.post(`/seller/orders/${orderId}`).set(seller.bearer).send(body);
  const buyerAct = (body: object) =>
    stack.api.http
      .put(`/user/purchases/${purchaseId}`)
      .set(buyer.bearer)
      .send({ orderId, ...body });
  const ship = () =>
    sellerAct({ action: 'ship', shipment: { carrier: 'RM', trackingNumber: 'RM1' }, items: [{ id: itemId, quantity: 1 }] });

  it("orders: ACCEPTED → SHIPPED → RECEIVED, each party's actions and the automatic-receipt deadline", async () => {
    const { api } = stack;
    const bought = await sellerWithListings(api, [{ quantity: 1, price: 1200 }]);
    seller = bought.seller;
    buyer = await registerUser(api, 'nabuyer');
    const basketId = await fillBasket(api, buyer, [{ listingId: bought.listingIds[0]! }]);
    const checkout = await api.http
      .post(`/basket/${basketId}/checkout`)
      .set(buyer.bearer)
      .send({ successUrl: 'https://shop.example/ok' })
      .expect(201);
    purchaseId = await pay(api, checkout.body.url);
    orderId = (await api.http.get('/seller/orders').set(seller.bearer).expect(200)).body[0].id;
    const accepted = await sellerOrder();
    itemId = accepted.items[0].id;

    // ACCEPTED: before shipment the seller may cancel and the buyer ask to.
    expect(accepted).toMatchObject({ status: 'ACCEPTED', actions: ['ship', 'dispute', 'cancel'], deadlines: { autoReceiptAt: null } });
    expect(await buyerOrder()).toMatchObject({ actions: ['dispute', 'request-cancel'], deadlines: { autoReceiptAt: null } });
    refused(await buyerAct({ action: 'receive' })); // not listed for the buyer
    refused(await sellerAct({ action: 'receive' })); // never the seller's

    // SHIPPED: the buyer may receive; automatic receipt 21 days after shipping.
    await ship().expect(204);
    const shipped = await sellerOrder();
    expect(shipped).toMatchObject({ status: 'SHIPPED', actions: ['dispute'] });
    const [{ shipped_at }] = await api.database.db.query(`SELECT shipped_at FROM orders WHERE id = $1`, [orderId]);
    expect(shipped.deadlines.autoReceiptAt).toBe(plus(shipped_at.toISOString(), 21 * DAY));
    expect(await buyerOrder()).toMatchObject({
      actions: ['receive', 'dispute'],
      deadlines: { autoReceiptAt: shipped.deadlines.autoReceiptAt },
    });
    refused(await ship());

    // RECEIVED
    await buyerAct({ action: 'receive' }).expect(200);
    expect(await sellerOrder()).toMatchObject({ status: 'RECEIVED', actions: ['dispute'], deadlines: { autoReceiptAt: null } });
    expect(await buyerOrder()).toMatchObject({ actions: ['dispute'], deadlines: { autoReceiptAt: null } });
    refused(await buyerAct({ action: 'receive' }));
    refused(await ship());
    const purchase = (await api.http.get(`/user/purchases/${purchaseId}`).set(buyer.bearer).expect(200)).body;
    expect(purchase.status).toBe('COMPLETED');
    expect(purchase.deadlines.reviewWindowClosesAt).toBe(plus(purchase.completedAt, 14 * DAY));
  }, 120_000);

  it("cases: OPEN → proposal → SETTLED → CLOSED, each party's actions and the escalation deadline; everything else refused", async () => {
    const { api } = stack;
    await buyerAct({ action: 'dispute', reason: 'SNAD', items: [{ id: itemId, quantity: 1 }] }).expect(200);
    const [opened] = (await api.http.get('/seller/cases').set(seller.bearer).expect(200)).body;
    const id = opened.id as string;
    const asSeller = async () => (await api.http.get(`/seller/cases/${id}`).set(seller.bearer).expect(200)).body;
    const asBuyer = async () => (await api.http.get(`/user/cases/${id}`).set(buyer.bearer).expect(200)).body;
    const sellerDo = (body: object) => api.http.put(`/seller/cases/${id}`).set(seller.bearer).send(body);
    const buyerDo = (body: object) => api.http.put(`/user/cases/${id}`).set(buyer.bearer).send(body);
    const proposal = {
      action: 'propose',
      type: 'RETURN',
      amount: 1200,
      comment: 'Send it back',
      deliveryAddress: { name: 'Shop', line1: '1 Road', city: 'Leeds', postal_code: 'LS1 1AA', country: 'GB' },
    };

    // OPEN, nothing proposed: both may propose or escalate; 7 days to automatic escalation.
    expect(opened).toMatchObject({
      status: 'OPEN',
      actions: ['propose', 'escalate'],
      deadlines: { escalatesAt: plus(opened.createdAt, 7 * DAY) },
    });
    expect(await asBuyer()).toMatchObject({ actions: ['propose', 'escalate'] });
    refused(await sellerDo({ action: 'resolve' }));
    refused(await buyerDo({ action: 'resolve' }));
    refused(await sellerDo({ action: 'accept', outcomeId: id }));
    refused(await buyerDo({ action: 'reject', outcomeId: id }));

    // The seller proposes a return: only the buyer may answer it.
    const outcomeId = (await sellerDo(proposal).expect(200)).body.outcomes[0].id;
    expect(await asSeller()).toMatchObject({ status: 'OPEN', actions: ['propose', 'escalate'] });
    expect(await asBuyer()).toMatchObject({ actions: ['propose', 'accept', 'reject', 'escalate'] });
    refused(await sellerDo({ action: 'accept', outcomeId }));
    refused(await sellerDo({ action: 'reject', outcomeId }));

    // The buyer accepts: SETTLED, only the seller's resolve is left, no clock runs.
    await buyerDo({ action: 'accept', outcomeId }).expect(200);
    expect(await asSeller()).toMatchObject({ status: 'SETTLED', actions: ['resolve'], deadlines: { escalatesAt: null } });
    expect(await asBuyer()).toMatchObject({ status: 'SETTLED', actions: [], deadlines: { escalatesAt: null } });
    for (const body of [proposal, { action: 'escalate' }, { action: 'accept', outcomeId }, { action: 'reject', outcomeId }]) {
      refused(await buyerDo(body));
      refused(await sellerDo(body));
    }

    // The seller resolves: CLOSED, nothing left to anyone.
    await sellerDo({ action: 'resolve' }).expect(200);
    expect(await asSeller()).toMatchObject({ status: 'CLOSED', actions: [], deadlines: { escalatesAt: null } });
    expect(await asBuyer()).toMatchObject({ actions: [] });
    for (const body of [proposal, { action: 'escalate' }, { action: 'resolve' }]) refused(await sellerDo(body));
    for (const body of [proposal, { action: 'escalate' }]) refused(await buyerDo(body));
  }, 120_000);
});
