import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { registerSeller, registerUser, startTestApi, testEnv, type TestApi, type TestUser } from '../support/api';
import { insertCase, insertPaidOrder } from '../support/cases';
import { ROOT } from '../support/env';
import { insertListing, seedCatalog } from '../support/fixtures';
import { commitPaidCheckout } from '../support/purchases';
import { fillBasket } from '../support/shop';

// Operator routes over HTTP on a real database. Deciding a case needs the case workflow and is
// covered end to end (test/e2e/operators.test.ts); everything else is here.
let api: TestApi;
let operator: TestUser;
beforeAll(async () => {
  api = await startTestApi();
  operator = await registerUser(api, 'operator');
  // The role is granted the way a deployment grants it: with the CLI, against the database. Not
  // execFileSync, which would block the API in this process (see operator-oauth-apps.test.ts).
  const { stdout: out } = await promisify(execFile)(
    process.execPath,
    ['-r', 'ts-node/register', path.join(ROOT, 'scripts/operators.ts'), 'grant', operator.username],
    {
      cwd: ROOT,
      env: { ...process.env, ...testEnv(api.database.url), TS_NODE_TRANSPILE_ONLY: 'true' },
      encoding: 'utf8',
    },
  );
  expect(out).toContain(`${operator.username} (${operator.id}) is an operator`);
}, 60_000);
afterAll(() => api.close());

const db = () => api.database.db;

describe('operator access', () => {
  it('refuses callers without the role, and operators using anything but their own access token', async () => {
    const user = await registerUser(api);
    const refused = await api.http.get('/operator/cases').set(user.bearer).expect(403);
    expect(refused.body.type).toBe('/problems/operator-required');
    await api.http.get('/operator/cases').expect(401);
    const pat = await api.http.post('/user/personal-access-tokens').set(operator.bearer).send({ name: 'ops' }).expect(201);
    const viaPat = await api.http.get('/operator/cases').set('Authorization', `ApiKey ${pat.body.token}`).expect(403);
    expect(viaPat.body.type).toBe('/problems/bearer-token-required');
    await api.http.get('/operator/cases').set(operator.bearer).expect(200);
  });

  it('documents the operator routes under their own tag and security requirement', async () => {
    const doc = (await api.http.get('/openapi.json').expect(200)).body;
    expect(doc.components.securitySchemes.Operator).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/operator/sellers/{id}/suspend'].post).toMatchObject({ tags: ['Operators'], security: [{ Operator: [] }] });
    expect(doc.tags).toContainEqual({ name: 'Operators', description: expect.stringContaining('operators') });
  });
});

describe('suspending and reinstating a seller', () => {
  it("hides the listings from search at once, refuses the basket's checkout, and audits who and why", async () => {
    const seller = await registerSeller(api, 'suspended');
    await api.http
      .post('/seller/delivery-options')
      .set(seller.bearer)
      .send({ name: 'RM', price: 150, tracked: false, countries: ['GB'] })
      .expect(201);
    const { items } = await seedCatalog(db(), { names: ['Suspendable'] });
    const urn = items[0]!.urn;
    const listing = await insertListing(db(), { sellerId: seller.id, itemUrn: urn, quantity: 3, price: 900 });
    const buyer = await registerUser(api, 'sbuyer');
    const basketId = await fillBasket(api, buyer, [{ listingId: listing.id }]);
    const hits = async () => (await api.http.post('/listings/item').send({ urn }).expect(200)).body.hits.map((h: { id: string }) => h.id);
    expect(await hits()).toEqual([listing.id]);

    const suspended = await api.http
      .post(`/operator/sellers/${seller.id}/suspend`)
      .set(operator.bearer)
      .send({ reason: 'Counterfeit cards reported' })
      .expect(200);
    expect(suspended.body).toMatchObject({
      userId: seller.id,
      status: 'SUSPENDED',
      reason: 'Counterfeit cards reported',
      changedBy: operator.id,
    });

    expect(await hits()).toEqual([]);
    const checkout = await api.http
      .post(`/basket/${basketId}/checkout`)
      .set(buyer.bearer)
      .send({ successUrl: 'https://shop.example/ok' })
      .expect(409);
    expect(checkout.body).toMatchObject({ type: '/problems/listings-unavailable', listingIds: [listing.id] });
    const again = await api.http.post(`/operator/sellers/${seller.id}/suspend`).set(operator.bearer).send({ reason: 'twice' }).expect(409);
    expect(again.body.type).toBe('/problems/seller-suspended');
    expect((await api.http.get(`/operator/sellers/${seller.id}`).set(operator.bearer).expect(200)).body.status).toBe('SUSPENDED');

    await api.http
      .post(`/operator/sellers/${seller.id}/reinstate`)
      .set(operator.bearer)
      .send({ reason: 'Reports were mistaken' })
      .expect(200);
    expect(await hits()).toEqual([listing.id]);

    const audit = (await api.http.get(`/operator/audit-log?subjectType=seller&subjectId=${seller.id}`).set(operator.bearer).expect(200))
      .body;
    expect(audit).toMatchObject({ total: 2, page: 1, size: 20 });
    expect(audit.items).toEqual([
      expect.objectContaining({
        operatorId: operator.id,
        action: 'seller.reinstate',
        subjectType: 'seller',
        subjectId: seller.id,
        reason: 'Reports were mistaken',
      }),
      expect.objectContaining({
        operatorId: operator.id,
        action: 'seller.suspend',
        subjectType: 'seller',
        subjectId: seller.id,
        reason: 'Counterfeit cards reported',
      }),
    ]);
    // Append-only in the database too: history cannot be rewritten, even with SQL.
    await expect(db().query(`UPDATE operator_audit_log SET reason = 'nothing happened'`)).rejects.toThrow(/append-only/);
    await expect(db().query(`DELETE FROM operator_audit_log`)).rejects.toThrow(/append-only/);
  });

  it('answers 404 for a user who is not a seller and 400 without a reason', async () => {
    const user = await registerUser(api);
    await api.http.post(`/operator/sellers/${user.id}/suspend`).set(operator.bearer).send({ reason: 'x' }).expect(404);
    const res = await api.http.post(`/operator/sellers/${user.id}/suspend`).set(operator.bearer).send({}).expect(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'reason' })]);
  });
});

describe('GET /operator/cases', () => {
  it("searches every seller's cases by status, reason, seller and age, oldest first, unredacted", async () => {
    const [buyer, sellerA, sellerB] = await Promise.all([registerUser(api), registerSeller(api), registerSeller(api)]);
    const open = async (seller: TestUser, reason: string, status: string, createdAt: string) => {
      const order = await insertPaidOrder(db(), buyer.id, seller.id);
      const { caseId } = await insertCase(db(), order.orderId, 'BUYER', { reason, items: [{ id: order.itemIds[0]!, quantity: 1 }] });
      await db().query(`UPDATE cases SET status = $2, created_at = $3 WHERE id = $1`, [caseId, status, createdAt]);
      return caseId;
    };
    const old = await open(sellerA, 'SNAD', 'ESCALATED', '2026-01-01T00:00:00Z');
    const newer = await open(sellerA, 'DAMAGED', 'ESCALATED', '2026-03-01T00:00:00Z');
    const other = await open(sellerB, 'SNAD', 'OPEN', '2026-02-01T00:00:00Z');
    const list = async (query: string) =>
      (await api.http.get(`/operator/cases?${query}`).set(operator.bearer).expect(200)).body.items.map((c: { id: string }) => c.id);

    expect(await list(`sellerId=${sellerA.id}`)).toEqual([old, newer]);
    const second = (await api.http.get(`/operator/cases?sellerId=${sellerA.id}&size=1&page=2`).set(operator.bearer).expect(200)).body;
    expect(second).toMatchObject({ total: 2, page: 2, size: 1, items: [{ id: newer }] });
    expect(await list(`sellerId=${sellerA.id}&reason=SNAD`)).toEqual([old]);
    expect(await list(`status=ESCALATED&openedBefore=2026-02-01T00:00:00Z&sellerId=${sellerA.id}`)).toEqual([old]);
    const any = await list('status=ESCALATED&status=OPEN&openedAfter=2026-01-15T00:00:00Z');
    expect(any).toEqual(expect.arrayContaining([newer, other]));
    expect(any).not.toContain(old);
    const one = await api.http.get(`/operator/cases/${other}`).set(operator.bearer).expect(200);
    expect(one.body).toMatchObject({ id: other, sellerId: sellerB.id, buyerId: buyer.id, status: 'OPEN', reason: 'SNAD' });
    await api.http.get('/operator/cases?status=LOST').set(operator.bearer).expect(400);
  });
});

describe('stuck money', () => {
  it('lists an overdue release to operators only, and finishes it on request, once', async () => {
    const [buyer, seller] = await Promise.all([registerUser(api), registerSeller(api)]);
    const { orderId } = await commitPaidCheckout(db(), buyer.id, seller.id, 1000);
    await db().query(`UPDATE orders SET status = 'SHIPPED' WHERE id = $1`, [orderId]);
    await api.services.orderUpdates.apply(orderId, { role: 'buyer', userId: buyer.id }, { action: 'receive' });
    // Its release workflow never ran: the transfer is two days past its date.
    await db().query(`UPDATE transfers SET available_on = now() - interval '2 days' WHERE order_id = $1`, [orderId]);

    await api.http.get('/operator/money/stuck').set(seller.bearer).expect(403);
    await api.http.post('/operator/money/reconcile').set(seller.bearer).expect(403);
    const stuck = (await api.http.get('/operator/money/stuck').set(operator.bearer).expect(200)).body;
    expect(stuck.stuck).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'release', id: orderId, sellerId: seller.id, status: 'PENDING', amount: 950 }),
      ]),
    );

    const first = (await api.http.post('/operator/money/reconcile').set(operator.bearer).expect(200)).body.reconciled;
    expect(first).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'release', subjectId: orderId, before: 'PENDING', after: 'released', error: null }),
      ]),
    );
    const again = (await api.http.post('/operator/money/reconcile').set(operator.bearer).expect(200)).body.reconciled;
    expect(again.map((r: { subjectId: string }) => r.subjectId)).not.toContain(orderId);
    expect((await api.http.get('/seller/balance').set(seller.bearer).expect(200)).body).toMatchObject({ pending: 0, available: 950 });
    const after = (await api.http.get('/operator/money/stuck').set(operator.bearer).expect(200)).body;
    expect(after.stuck.map((s: { id: string }) => s.id)).not.toContain(orderId);
    expect(after.recent[0]).toMatchObject({ subjectId: orderId, after: 'released' });
  });
});
