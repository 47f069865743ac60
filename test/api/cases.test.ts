import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { recordCaseChange } from '../../src/services/cases/case-changes';
import { caseChangeStarts } from '../../src/modules/cases';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertCase, insertPaidOrder, type PaidOrder } from '../support/cases';
import { png } from '../support/images';
const RETURN_ADDRESS = {
  name: 'Card Shop',
  line1: '2 Dock Road',
  line2: '',
  city: 'Leeds',
  state: '',
  postal_code: 'LS1 1AA',
  country: 'GB',
};
/** RETURN_ADDRESS (as stored) as the case views answer it: the saved address's names. */
const { postal_code: postalCode, ...unnamed } = RETURN_ADDRESS;
const RETURN_ADDRESS_ANSWERED = { ...unnamed, postalCode };

// No Temporal here: cases are opened through the case-opening path directly and workflow
// decisions are written with the workflow's own activity, so these tests are about what the
// API reads and the checks it makes before asking the workflow.
let api: TestApi;
let buyer: TestUser;
let otherBuyer: TestUser;
let seller: TestUser;
let otherSeller: TestUser;
/** The API's log lines, to check what a failed request logged. */
const logLines: Array<Record<string, unknown> & { requestId?: string; msg?: string; err?: unknown }> = [];
beforeAll(async () => {
  api = await startTestApi({ log: pino({ level: 'warn' }, { write: (line: string) => void logLines.push(JSON.parse(line)) }) });
  [buyer, otherBuyer, seller, otherSeller] = await Promise.all([
    registerUser(api, 'cbuyer'),
    registerUser(api, 'cbuyer'),
    registerSeller(api, 'cseller'),
    registerSeller(api, 'cseller'),
  ]);
});
afterAll(() => api.close());

const db = () => api.database.db;
async function openedCase(
  by: TestUser = buyer,
  sellerUser: TestUser = seller,
  outcomes = [] as Parameters<typeof insertCase>[3]['outcomes'],
) {
  const order = await insertPaidOrder(db(), by.id, sellerUser.id);
  const opened = await insertCase(db(), order.orderId, 'BUYER', { items: [{ id: order.itemIds[0]!, quantity: 1 }], outcomes });
  return { ...order, caseId: opened.caseId, outcomes: opened.outcomes };
}

describe('opening a case through the order routes', () => {
  let order: PaidOrder;
  beforeAll(async () => {
    order = await insertPaidOrder(db(), buyer.id, seller.id, [2, 1]);
  });

  it('refuses quantities above what was ordered, listing each bad item (400), and opens nothing', async () => {
    const res = await api.http
      .post(`/seller/orders/${order.orderId}`)
      .set(seller.bearer)
      .send({ action: 'dispute', reason: 'SNAD', items: [{ id: order.itemIds[0], quantity: 3 }] })
      .expect(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'items.0.quantity' })]);
    expect(await db().query(`SELECT 1 FROM cases WHERE order_id = $1`, [order.orderId])).toHaveLength(0);
  });

  it('refuses to dispute an item already in an open case (409), other items of the order stay disputable', async () => {
    await insertCase(db(), order.orderId, 'BUYER', { items: [{ id: order.itemIds[0]!, quantity: 1 }] });
    const res = await api.http
      .put(`/user/purchases/${order.purchaseId}`)
      .set(buyer.bearer)
      .send({ action: 'dispute', orderId: order.orderId, reason: 'DAMAGED', items: [{ id: order.itemIds[0], quantity: 1 }] })
      .expect(409);
    expect(res.body.type).toContain('item-already-disputed');
    await expect(insertCase(db(), order.orderId, 'BUYER', { items: [{ id: order.itemIds[1]!, quantity: 1 }] })).resolves.toBeDefined();
  });

  it('opens the case while Temporal is unreachable: its workflow waits in the start outbox', async () => {
    const fresh = await insertPaidOrder(db(), buyer.id, seller.id);
    await api.http
      .post(`/seller/orders/${fresh.orderId}`)
      .set(seller.bearer)
      .send({ action: 'dispute', reason: 'SNAD', items: [{ id: fresh.itemIds[0], quantity: 1 }] })
      .expect(204);
    const [opened] = await db().query(`SELECT id FROM cases WHERE order_id = $1`, [fresh.orderId]);
    const intents = await db().query(`SELECT workflow_type, options, started_at FROM workflow_starts WHERE workflow_id = $1`, [
      `case:${opened.id}`,
    ]);
    expect(intents).toEqual([
      {
        workflow_type: 'caseWorkflow',
        options: {
          reusePolicy: 'REJECT_DUPLICATE',
          summary: `Case ${opened.id} (SNAD) on order ${fresh.orderId}, seller ${seller.id}`,
          searchAttributes: [
            { name: 'CaseStatus', type: 'KEYWORD', value: 'OPEN' },
            { name: 'CaseReason', type: 'KEYWORD', value: 'SNAD' },
            { name: 'CaseSellerId', type: 'KEYWORD', value: seller.id },
            { name: 'CaseOrderId', type: 'KEYWORD', value: fresh.orderId },
          ],
        },
        started_at: null,
      },
    ]);
  });

  it('validates initial outcomes', async () => {
    await api.http
      .post(`/seller/orders/${order.orderId}`)
      .set(seller.bearer)
      .send({ action: 'dispute', reason: 'SNAD', items: [{ id: order.itemIds[1], quantity: 1 }], outcomes: [{ type: 'CASH' }] })
      .expect(400);
  });
});

describe('GET /user/cases', () => {
  it("lists only the caller's cases, with purchaseId, outcomes and attachments, paged and sorted", async () => {
    const buyerA = await registerUser(api, 'lister');
    const created: string[] = [];
    for (let i = 0; i < 3; i += 1) created.push((await openedCase(buyerA)).caseId);
    await openedCase(otherBuyer);

    const all = await api.http.get('/user/cases?sort=createdAt&direction=asc').set(buyerA.bearer).expect(200);
    expect(all.body.map((c: { id: string }) => c.id)).toEqual(created);
    expect(all.body[0]).toMatchObject({
      purchaseId: expect.any(String),
      status: 'OPEN',
      outcomes: [],
      attachments: [],
      workflowId: `case:${created[0]}`,
    });

    const page2 = await api.http.get('/user/cases?size=1&page=2&sort=createdAt&direction=asc').set(buyerA.bearer).expect(200);
    expect(page2.body.map((c: { id: string }) => c.id)).toEqual([created[1]]);
    const desc = await api.http.get('/user/cases?size=2').set(buyerA.bearer).expect(200);
    expect(desc.body.map((c: { id: string }) => c.id)).toEqual([created[2], created[1]]);
  });

  it('caps the page size at 50 and refuses page 0 (400)', async () => {
    await api.http.get('/user/cases?size=50').set(buyer.bearer).expect(200);
    await api.http.get('/user/cases?size=51').set(buyer.bearer).expect(400);
    await api.http.get('/user/cases?size=0').set(buyer.bearer).expect(400);
    await api.http.get('/user/cases?page=0').set(buyer.bearer).expect(400);
    await api.http.get('/user/cases?sort=status').set(buyer.bearer).expect(400);
  });

  it("answers 404 for another buyer's case", async () => {
    const { caseId } = await openedCase(buyer);
    await api.http.get(`/user/cases/${caseId}`).set(buyer.bearer).expect(200);
    await api.http.get(`/user/cases/${caseId}`).set(otherBuyer.bearer).expect(404);
    await api.http.get(`/user/cases/${randomUUID()}`).set(buyer.bearer).expect(404);
  });
});

/** The review window a closing case requests when it completes the purchase. */
const WINDOW = { reviewWindowSeconds: 60, ...caseChangeStarts };

describe("redaction of the seller's return address", () => {
  /** The seller proposes a RETURN to their address, as the case workflow would record it. */
  async function sellerProposesReturn(caseId: string) {
    const pending = { id: randomUUID(), type: 'RETURN' as const, party: 'SELLER' as const, status: 'PENDING' as const };
    await recordCaseChange(
      db(),
      {
        caseId,
        changeId: randomUUID(),
        actor: 'SELLER',
        kind: 'propose',
        status: 'OPEN',
        outcomes: [pending],
        proposal: { id: pending.id, type: 'RETURN', amount: 0, comment: 'post it back', deliveryAddress: RETURN_ADDRESS },
      },
      WINDOW,
    );
    return pending;
  }

  it('hides it from the buyer until the buyer accepts that outcome', async () => {
    const { caseId } = await openedCase();
    const pending = await sellerProposesReturn(caseId);
    const outcomeId = pending.id;
    const before = await api.http.get(`/user/cases/${caseId}`).set(buyer.bearer).expect(200);
    expect(before.body.outcomes).toEqual([
      expect.objectContaining({ id: outcomeId, party: 'SELLER', status: 'PENDING', deliveryAddress: null }),
    ]);
    const listed = await api.http.get('/user/cases?size=50').set(buyer.bearer).expect(200);
    expect(listed.body.find((c: { id: string }) => c.id === caseId).outcomes[0].deliveryAddress).toBeNull();

    await recordCaseChange(
      db(),
      { caseId, changeId: randomUUID(), actor: 'BUYER', kind: 'accept', status: 'SETTLED', outcomes: [{ ...pending, status: 'ACCEPTED' }] },
      WINDOW,
    );
    const after = await api.http.get(`/user/cases/${caseId}`).set(buyer.bearer).expect(200);
    expect(after.body).toMatchObject({ status: 'SETTLED', outcomes: [{ status: 'ACCEPTED', deliveryAddress: RETURN_ADDRESS_ANSWERED }] });
  });

  it("applies in order views too: the seller's order shows it, the buyer's purchase does not", async () => {
    const { caseId, orderId, purchaseId } = await openedCase();
    await sellerProposesReturn(caseId);
    const sellerOrder = await api.http.get(`/seller/orders/${orderId}`).set(seller.bearer).expect(200);
    expect(sellerOrder.body.cases).toEqual([
      expect.objectContaining({ id: caseId, outcomes: [expect.objectContaining({ deliveryAddress: RETURN_ADDRESS_ANSWERED })] }),
    ]);
    const purchase = await api.http.get(`/user/purchases/${purchaseId}`).set(buyer.bearer).expect(200);
    expect(purchase.body.orders[0].cases[0].outcomes[0].deliveryAddress).toBeNull();
  });

  it("shows the buyer their own outcome's address", async () => {
    const { caseId } = await openedCase(buyer, seller, [
      { type: 'REPLACEMENT', amount: 0, comment: '<b>new one</b> please', deliveryAddress: RETURN_ADDRESS },
    ]);
    const res = await api.http.get(`/user/cases/${caseId}`).set(buyer.bearer).expect(200);
    // Markup is stripped from comments.
    expect(res.body.outcomes).toEqual([
      expect.objectContaining({ party: 'BUYER', deliveryAddress: RETURN_ADDRESS_ANSWERED, comment: 'new one please' }),
    ]);
  });
});

describe('PUT /seller/cases/{id} and PUT /user/cases/{id}', () => {
  it("answers 404 for another seller's case or another buyer's case, before asking the workflow", async () => {
    const { caseId } = await openedCase();
    await api.http.put(`/seller/cases/${caseId}`).set(otherSeller.bearer).send({ action: 'escalate' }).expect(404);
    await api.http.put(`/user/cases/${caseId}`).set(otherBuyer.bearer).send({ action: 'escalate' }).expect(404);
    await api.http.put(`/seller/cases/${randomUUID()}`).set(seller.bearer).send({ action: 'escalate' }).expect(404);
  });

  it('refuses malformed actions (400): unknown actions, `resolve` for buyers, accept without an outcome id', async () => {
    const { caseId } = await openedCase();
    await api.http.put(`/seller/cases/${caseId}`).set(seller.bearer).send({ action: 'close' }).expect(400);
    await api.http.put(`/user/cases/${caseId}`).set(buyer.bearer).send({ action: 'resolve' }).expect(400);
    await api.http.put(`/seller/cases/${caseId}`).set(seller.bearer).send({ action: 'accept' }).expect(400);
    await api.http.put(`/seller/cases/${caseId}`).set(seller.bearer).send({ action: 'propose', type: 'REFUND', amount: -1 }).expect(400);
  });

  it('answers 503 and changes nothing when the case workflow cannot be reached; the body carries no internal text', async () => {
    const { caseId } = await openedCase();
    logLines.length = 0;
    const res = await api.http.put(`/seller/cases/${caseId}`).set(seller.bearer).send({ action: 'escalate' }).expect(503);
    expect(res.body).toEqual({
      type: '/problems/temporarily-unavailable',
      title: 'Service Unavailable',
      status: 503,
      detail: 'The case could not be updated; try again shortly.',
      instance: `/seller/cases/${caseId}`,
      requestId: expect.any(String),
    });
    // The gRPC failure is in the log line of this request, and nowhere in the response.
    const logged = logLines.find((l) => l.requestId === res.body.requestId && l.msg === 'request failed');
    const grpcText = /UNAVAILABLE|ECONNREFUSED|grpc|No connection|127\.0\.0\.1:9/;
    expect(JSON.stringify(logged?.err)).toMatch(grpcText);
    expect(res.text).not.toMatch(grpcText);
    const [row] = await db().query(`SELECT status FROM cases WHERE id = $1`, [caseId]);
    expect(row.status).toBe('OPEN');
  }, 30_000);

  it('answers 409 on a closed case', async () => {
    const { caseId } = await openedCase();
    await recordCaseChange(
      db(),
      { caseId, changeId: randomUUID(), actor: 'OPERATOR', kind: 'operator-close', status: 'CLOSED', outcomes: [] },
      WINDOW,
    );
    const res = await api.http.put(`/seller/cases/${caseId}`).set(seller.bearer).send({ action: 'escalate' }).expect(409);
    expect(res.body.type).toContain('case-closed');
  });
});

describe('case attachments', () => {
  async function uploadBytes(user: TestUser, uploadUrl: string) {
    await api.http
      .put(new URL(uploadUrl).pathname)
      .set(user.bearer)
      .set('Content-Type', 'image/png')
      .send(await png())
      .expect(200);
  }

  it("creates an upload named by the case's URN shape, then attaches it once its bytes are in", async () => {
    const { caseId } = await openedCase();
    const created = await api.http.post(`/seller/cases/${caseId}/attachments`).set(seller.bearer).expect(201);
    expect(created.body.imageId).toBe(`case/${caseId}/attachments/${created.body.id}`);

    const draft = await api.http
      .patch(`/seller/cases/${caseId}/attachments`)
      .set(seller.bearer)
      .send({ id: created.body.imageId })
      .expect(400);
    expect(draft.body.type).toContain('upload-not-ready');

    await uploadBytes(seller, created.body.uploadUrl);
    const attached = await api.http
      .patch(`/seller/cases/${caseId}/attachments`)
      .set(seller.bearer)
      .send({ id: created.body.imageId })
      .expect(200);
    expect(attached.body).toMatchObject({
      id: created.body.id,
      imageId: created.body.imageId,
      party: 'SELLER',
      url: expect.stringContaining(`/images/${created.body.id}`),
    });
    await api.http.patch(`/seller/cases/${caseId}/attachments`).set(seller.bearer).send({ id: created.body.imageId }).expect(200);

    const seen = await api.http.get(`/user/cases/${caseId}`).set(buyer.bearer).expect(200);
    expect(seen.body.attachments).toEqual([expect.objectContaining({ id: created.body.id, party: 'SELLER' })]);
  });

  it("refuses ids of another shape or another case (400), and another seller's or buyer's case (404)", async () => {
    const { caseId } = await openedCase();
    const { caseId: otherCase } = await openedCase();
    const created = await api.http.post(`/seller/cases/${caseId}/attachments`).set(seller.bearer).expect(201);
    await uploadBytes(seller, created.body.uploadUrl);

    for (const id of [
      created.body.id,
      `case/${otherCase}/attachments/${created.body.id}`,
      `listing/${caseId}/attachments/${created.body.id}`,
    ]) {
      const res = await api.http.patch(`/seller/cases/${caseId}/attachments`).set(seller.bearer).send({ id }).expect(400);
      expect(res.body.type).toContain('invalid-image-id');
    }
    // A well-shaped id whose upload does not exist.
    await api.http
      .patch(`/seller/cases/${caseId}/attachments`)
      .set(seller.bearer)
      .send({ id: `case/${caseId}/attachments/${randomUUID()}` })
      .expect(400);
    await api.http.patch(`/seller/cases/${caseId}/attachments`).set(otherSeller.bearer).send({ id: created.body.imageId }).expect(404);
    await api.http.post(`/seller/cases/${caseId}/attachments`).set(otherSeller.bearer).expect(404);
    await api.http.patch(`/user/cases/${caseId}/attachments`).set(otherBuyer.bearer).send({ id: created.body.imageId }).expect(404);
  });

  it("lets the buyer attach an image to their case; not the seller's upload", async () => {
    const { caseId } = await openedCase();
    const mine = await api.http.post(`/user/cases/${caseId}/attachments`).set(buyer.bearer).expect(201);
    await uploadBytes(buyer, mine.body.uploadUrl);
    const sellers = await api.http.post(`/seller/cases/${caseId}/attachments`).set(seller.bearer).expect(201);
    await uploadBytes(seller, sellers.body.uploadUrl);
    await api.http.patch(`/user/cases/${caseId}/attachments`).set(buyer.bearer).send({ id: sellers.body.imageId }).expect(400);
    const res = await api.http.patch(`/user/cases/${caseId}/attachments`).set(buyer.bearer).send({ id: mine.body.imageId }).expect(200);
    expect(res.body.party).toBe('BUYER');
  });
});
