import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertCase, insertPaidOrder } from '../support/cases';
import { insertPurchase } from '../support/orders';

// Inboxes read what the order engine and the case workflow wrote; rows are written directly here
// (dates and statuses set as a history would have left them), and every read goes over HTTP.
let api: TestApi;
let seller: TestUser;
let otherSeller: TestUser;
let buyer: TestUser;
let otherBuyer: TestUser;
beforeAll(async () => {
  api = await startTestApi();
  [seller, otherSeller, buyer, otherBuyer] = await Promise.all([
    registerSeller(api, 'ibseller'),
    registerSeller(api, 'ibseller'),
    registerUser(api, 'ibbuyer'),
    registerUser(api, 'ibbuyer'),
  ]);
});
afterAll(() => api.close());

const db = () => api.database.db;
const setCreated = (table: 'orders' | 'purchases', id: string, at: string) =>
  db().query(`UPDATE ${table} SET created_at = $2 WHERE id = $1`, [id, at]);
const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id);

describe('GET /seller/orders filters and GET /user/purchases filters', () => {
  // shipped: buyer's, January, has an item `urn` and an open case; accepted: other buyer's,
  // February; received: buyer's, March; foreign: another seller's order of the buyer.
  let shipped: Awaited<ReturnType<typeof insertPaidOrder>>;
  let accepted: { purchaseId: string; orderIds: string[] };
  let received: { purchaseId: string; orderIds: string[] };
  let foreign: { purchaseId: string; orderIds: string[] };
  let urn: string;
  beforeAll(async () => {
    shipped = await insertPaidOrder(db(), buyer.id, seller.id, [1, 1]);
    accepted = await insertPurchase(db(), {
      buyerId: otherBuyer.id,
      sellerIds: [seller.id],
      orderStatus: 'ACCEPTED',
      purchaseStatus: 'PAID',
    });
    received = await insertPurchase(db(), {
      buyerId: buyer.id,
      sellerIds: [seller.id],
      orderStatus: 'RECEIVED',
      purchaseStatus: 'COMPLETED',
    });
    foreign = await insertPurchase(db(), {
      buyerId: buyer.id,
      sellerIds: [otherSeller.id],
      orderStatus: 'ACCEPTED',
      purchaseStatus: 'PAID',
    });
    await setCreated('orders', shipped.orderId, '2026-01-10T00:00:00Z');
    await setCreated('purchases', shipped.purchaseId, '2026-01-10T00:00:00Z');
    await setCreated('orders', accepted.orderIds[0]!, '2026-02-10T00:00:00Z');
    await setCreated('orders', received.orderIds[0]!, '2026-03-10T00:00:00Z');
    await setCreated('purchases', received.purchaseId, '2026-03-10T00:00:00Z');
    await setCreated('orders', foreign.orderIds[0]!, '2026-02-20T00:00:00Z');
    await setCreated('purchases', foreign.purchaseId, '2026-02-20T00:00:00Z');
    await insertCase(db(), shipped.orderId, 'BUYER', { items: [{ id: shipped.itemIds[0]!, quantity: 1 }] });
    [{ urn }] = await db().query(`SELECT urn FROM order_items WHERE id = $1`, [shipped.itemIds[1]]);
  });

  const sellerOrders = async (query: string, who = seller) =>
    ids((await api.http.get(`/seller/orders?${query}`).set(who.bearer).expect(200)).body);

  it("filters the seller's orders by status, created range, buyer, item and open case, newest first", async () => {
    const [s, a, r] = [shipped.orderId, accepted.orderIds[0], received.orderIds[0]];
    expect(await sellerOrders('')).toEqual([r, a, s]);
    expect(await sellerOrders('status=ACCEPTED')).toEqual([a]);
    expect(await sellerOrders('status=SHIPPED&status=RECEIVED')).toEqual([r, s]);
    expect(await sellerOrders('createdFrom=2026-02-01T00:00:00Z&createdTo=2026-03-10T00:00:00Z')).toEqual([a]);
    expect(await sellerOrders('createdFrom=2026-02-01T00:00:00Z')).toEqual([r, a]);
    expect(await sellerOrders('createdTo=2026-02-10T00:00:00Z')).toEqual([s]);
    expect(await sellerOrders(`buyerId=${otherBuyer.id}`)).toEqual([a]);
    expect(await sellerOrders(`buyerId=${buyer.id}&status=RECEIVED`)).toEqual([r]);
    expect(await sellerOrders(`urn=${encodeURIComponent(urn)}`)).toEqual([s]);
    expect(await sellerOrders('hasOpenCase=true')).toEqual([s]);
    expect(await sellerOrders('hasOpenCase=false')).toEqual([r, a]);
    expect(await sellerOrders('direction=asc&size=2')).toEqual([s, a]);
    // Never another seller's order, whatever the filter.
    expect(await sellerOrders(`buyerId=${buyer.id}`, otherSeller)).toEqual([foreign.orderIds[0]]);
  });

  it('refuses bad filters with every failing field', async () => {
    const res = await api.http
      .get('/seller/orders?status=LOST&buyerId=nope&createdFrom=2026-03-01T00:00:00Z&createdTo=2026-02-01T00:00:00Z&hasOpenCase=maybe')
      .set(seller.bearer)
      .expect(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['buyerId', 'createdTo', 'hasOpenCase', 'status']);
  });

  it("filters the buyer's purchases by status, created range, seller and open case", async () => {
    const purchases = async (query: string) => {
      const page = (await api.http.get(`/user/purchases?${query}`).set(buyer.bearer).expect(200)).body;
      // Every answer here fits on the first page: the total is what it holds.
      expect(page).toMatchObject({ page: 1, size: 20, total: page.items.length });
      return ids(page.items);
    };
    const [s, r, f] = [shipped.purchaseId, received.purchaseId, foreign.purchaseId];
    expect(await purchases('')).toEqual([r, f, s]);
    expect(await purchases('status=PAID')).toEqual([f, s]);
    expect(await purchases('status=COMPLETED')).toEqual([r]);
    expect(await purchases('createdFrom=2026-02-01T00:00:00Z&createdTo=2026-03-01T00:00:00Z')).toEqual([f]);
    expect(await purchases('createdTo=2026-02-01T00:00:00Z')).toEqual([s]);
    expect(await purchases(`sellerId=${otherSeller.id}`)).toEqual([f]);
    expect(await purchases(`sellerId=${seller.id}`)).toEqual([r, s]);
    expect(await purchases('hasOpenCase=true')).toEqual([s]);
    expect(await purchases('hasOpenCase=false&status=PAID')).toEqual([f]);
    await api.http.get('/user/purchases?status=SHIPPED').set(buyer.bearer).expect(400);
  });
});

describe('GET /seller/cases and GET /seller/cases/{id}', () => {
  it("lists the seller's cases filtered by status and reason, soonest escalation first", async () => {
    const caseSeller = await registerSeller(api, 'ibcases');
    const order = await insertPaidOrder(db(), buyer.id, caseSeller.id, [1, 1, 1, 1]);
    const open = async (i: number, reason: string) =>
      (await insertCase(db(), order.orderId, 'BUYER', { reason, items: [{ id: order.itemIds[i]!, quantity: 1 }] })).caseId;
    const [openLate, remediation, escalated, closed] = [
      await open(0, 'DAMAGED'),
      await open(1, 'SNAD'),
      await open(2, 'DAMAGED'),
      await open(3, 'OTHER'),
    ];
    const set = (id: string, status: string, periodStart: string, updated: string) =>
      db().query(`UPDATE cases SET status = $2, period_started_at = $3, updated_at = $4 WHERE id = $1`, [id, status, periodStart, updated]);
    await set(openLate, 'OPEN', '2026-01-05T00:00:00Z', '2026-01-05T00:00:00Z');
    await set(remediation, 'REMEDIATION', '2026-01-02T00:00:00Z', '2026-01-02T00:00:00Z');
    await set(escalated, 'ESCALATED', '2025-12-01T00:00:00Z', '2026-01-20T00:00:00Z');
    await set(closed, 'CLOSED', '2025-12-01T00:00:00Z', '2026-01-10T00:00:00Z');

    const list = async (query: string, who = caseSeller) =>
      ids((await api.http.get(`/seller/cases?${query}`).set(who.bearer).expect(200)).body.items);
    const all = (await api.http.get('/seller/cases').set(caseSeller.bearer).expect(200)).body;
    expect(all).toMatchObject({ total: 4, page: 1, size: 20 });
    const filtered = (await api.http.get('/seller/cases?reason=DAMAGED&size=1').set(caseSeller.bearer).expect(200)).body;
    expect(filtered).toMatchObject({ total: 2, page: 1, size: 1, items: [{ id: openLate }] });
    // Running clocks first (the REMEDIATION period started earlier, so it escalates sooner), then the rest by last change.
    expect(await list('')).toEqual([remediation, openLate, escalated, closed]);
    expect(await list('status=OPEN&status=ESCALATED')).toEqual([openLate, escalated]);
    expect(await list('reason=DAMAGED')).toEqual([openLate, escalated]);
    expect(await list('reason=SNAD&status=OPEN')).toEqual([]);
    expect(await list('size=1&page=2')).toEqual([openLate]);
    expect(await list('', seller)).not.toContain(openLate);
    await api.http.get('/seller/cases?status=LOST').set(caseSeller.bearer).expect(400);

    const one = await api.http.get(`/seller/cases/${remediation}`).set(caseSeller.bearer).expect(200);
    expect(one.body).toMatchObject({ id: remediation, status: 'REMEDIATION', reason: 'SNAD', orderId: order.orderId });
    await api.http.get(`/seller/cases/${remediation}`).set(otherSeller.bearer).expect(404);
    // A buyer without a seller account cannot use the seller inbox at all.
    await api.http.get('/seller/cases').set(buyer.bearer).expect(403);
  });
});
