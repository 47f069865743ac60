import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertListing, seedCatalog, type FixtureItem } from '../support/fixtures';

// No Temporal here: an offer's workflow start waits in the start outbox. These tests are about
// the rules checked when an offer is made (thresholds included, which act in that transaction),
// what each party reads, and the checks made before a move is sent to the workflow.
let api: TestApi;
let items: FixtureItem[];
let seller: TestUser;
let buyer: TestUser;
let otherBuyer: TestUser;
let otherSeller: TestUser;
beforeAll(async () => {
  api = await startTestApi();
  ({ items } = await seedCatalog(api.database.db, { names: ['Alakazam', 'Blastoise'] }));
  [seller, buyer, otherBuyer, otherSeller] = await Promise.all([
    registerSeller(api, 'oseller'),
    registerUser(api, 'obuyer'),
    registerUser(api, 'obuyer'),
    registerSeller(api, 'oseller'),
  ]);
});
afterAll(() => api.close());

const db = () => api.database.db;

async function listing(values: Record<string, unknown> = {}, by: TestUser = seller) {
  return insertListing(db(), {
    sellerId: by.id,
    itemUrn: items[0]!.urn,
    price: 10000,
    quantity: 2,
    offersEnabled: true,
    ...values,
  });
}

const offer = (who: TestUser, body: Record<string, unknown>) => api.http.post('/user/offers').set(who.bearer).send(body);

async function events(offerId: string) {
  const rows: Array<{ type: string; status: string; reason: string | null }> = await db().query(
    `SELECT type, data->>'status' AS status, data->>'reason' AS reason FROM outbox_events WHERE data->>'offerId' = $1 ORDER BY created_at, id`,
    [offerId],
  );
  return rows;
}

describe('making an offer', () => {
  it('answers 201 with the Offer shape, starts offer:{id} through the start outbox, tells the seller', async () => {
    const l = await listing();
    const res = await offer(buyer, { listingId: l.id, quantity: 2, unitPrice: 8000, message: 'Both for £160?' }).expect(201);
    expect(res.body).toMatchObject({
      listing: { id: l.id, price: 10000, offers: { enabled: true } },
      buyer: { id: buyer.id },
      seller: { id: seller.id },
      quantity: 2,
      unitPrice: 8000,
      status: 'PENDING',
      message: 'Both for £160?',
      history: [{ by: 'BUYER', action: 'offer', unitPrice: 8000, quantity: 2, at: expect.any(String) }],
      payBy: null,
      checkoutUrl: null,
    });
    expect(res.body.listing.offers.autoAcceptAt).toBeUndefined();
    const expiresIn = new Date(res.body.expiresAt).getTime() - Date.now();
    expect(expiresIn).toBeGreaterThan(47.9 * 3600_000);
    expect(expiresIn).toBeLessThanOrEqual(48 * 3600_000);
    expect(res.body.nextActions.map((a: { party: string; action: string }) => `${a.party}:${a.action}`)).toEqual([
      'SELLER:accept',
      'SELLER:decline',
      'SELLER:counter',
      'BUYER:withdraw',
    ]);
    expect(await events(res.body.id)).toEqual([{ type: 'OFFER_RECEIVED', status: 'PENDING', reason: null }]);
    const [start] = await db().query(`SELECT workflow_type, args FROM workflow_starts WHERE workflow_id = $1`, [`offer:${res.body.id}`]);
    expect(start).toEqual({ workflow_type: 'offerWorkflow', args: [{ offerId: res.body.id }] });
    const mails = await db().query(`SELECT to_address AS "to", kind FROM email_messages WHERE subject LIKE $1`, [`Offer ${res.body.id}%`]);
    expect(mails).toEqual([{ to: seller.email, kind: 'offer-update' }]);
  });

  it('refuses offers at or above the price, over the quantity, on listings without offers, on own listings', async () => {
    const l = await listing();
    expect((await offer(buyer, { listingId: l.id, quantity: 1, unitPrice: 10000 }).expect(422)).body.type).toBe(
      '/problems/offer-not-below-price',
    );
    expect((await offer(buyer, { listingId: l.id, quantity: 3, unitPrice: 9000 }).expect(422)).body.type).toBe(
      '/problems/offer-quantity-unavailable',
    );
    expect((await offer(seller, { listingId: l.id, quantity: 1, unitPrice: 9000 }).expect(403)).body.type).toBe(
      '/problems/offer-own-listing',
    );
    const off = await listing({ offersEnabled: false });
    expect((await offer(buyer, { listingId: off.id, quantity: 1, unitPrice: 9000 }).expect(409)).body.type).toBe(
      '/problems/offers-disabled',
    );
    const hidden = await listing({ hidden: true });
    expect((await offer(buyer, { listingId: hidden.id, quantity: 1, unitPrice: 9000 }).expect(409)).body.type).toBe(
      '/problems/offer-listing-unavailable',
    );
    expect(
      (await offer(buyer, { listingId: '0191f3c2-7a4e-7b21-9c3d-5e6f7a8b9c0d', quantity: 1, unitPrice: 9000 }).expect(404)).body.type,
    ).toBe('/problems/not-found');
    await offer(buyer, { listingId: l.id, quantity: 0, unitPrice: 9000 }).expect(400);
  });

  it('one open offer per buyer and listing, three per 48 hours', async () => {
    const l = await listing();
    const first = await offer(otherBuyer, { listingId: l.id, quantity: 1, unitPrice: 5000 }).expect(201);
    expect((await offer(otherBuyer, { listingId: l.id, quantity: 1, unitPrice: 5100 }).expect(409)).body.type).toBe(
      '/problems/offer-already-open',
    );
    // Two concurrent offers: exactly one is made.
    const l2 = await listing();
    const both = await Promise.all([1, 2].map((i) => offer(otherBuyer, { listingId: l2.id, quantity: 1, unitPrice: 5000 + i })));
    expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    // Closed offers still count within the window.
    await db().query(`UPDATE offers SET status = 'WITHDRAWN', turn = NULL WHERE id = $1`, [first.body.id]);
    const second = await offer(otherBuyer, { listingId: l.id, quantity: 1, unitPrice: 5200 }).expect(201);
    await db().query(`UPDATE offers SET status = 'DECLINED', turn = NULL WHERE id = $1`, [second.body.id]);
    const third = await offer(otherBuyer, { listingId: l.id, quantity: 1, unitPrice: 5300 }).expect(201);
    await db().query(`UPDATE offers SET status = 'EXPIRED', turn = NULL WHERE id = $1`, [third.body.id]);
    expect((await offer(otherBuyer, { listingId: l.id, quantity: 1, unitPrice: 5400 }).expect(409)).body.type).toBe(
      '/problems/offer-limit-reached',
    );
    // Outside the window they no longer count.
    await db().query(`UPDATE offers SET created_at = now() - interval '49 hours' WHERE id = $1`, [first.body.id]);
    await offer(otherBuyer, { listingId: l.id, quantity: 1, unitPrice: 5400 }).expect(201);
  });

  it('refuses a buyer the seller blocked in a conversation, and sellers on vacation', async () => {
    const buyer2 = await registerUser(api, 'obuyer');
    const l = await listing({}, otherSeller);
    await db().query(
      `INSERT INTO conversations (id, source_type, source_id, user_a_id, user_b_id, locked_by, locked_at)
       VALUES (gen_random_uuid(), 'LISTING', $1, $2, $3, $3, now())`,
      [l.id, buyer2.id, otherSeller.id],
    );
    expect((await offer(buyer2, { listingId: l.id, quantity: 1, unitPrice: 9000 }).expect(403)).body.type).toBe('/problems/offer-blocked');
    // A lock the buyer made is not the seller blocking them.
    await db().query(`UPDATE conversations SET locked_by = $1 WHERE source_id = $2`, [buyer2.id, l.id]);
    await offer(buyer2, { listingId: l.id, quantity: 1, unitPrice: 9000 }).expect(201);

    const away = await registerSeller(api, 'oseller');
    const awayListing = await listing({}, away);
    await db().query(`UPDATE seller_accounts SET vacation = true WHERE user_id = $1`, [away.id]);
    expect((await offer(buyer, { listingId: awayListing.id, quantity: 1, unitPrice: 9000 }).expect(409)).body.type).toBe(
      '/problems/offer-seller-away',
    );
  });
});

describe('thresholds act at once', () => {
  it('declines below autoDeclineBelow and says so in the history; no workflow starts', async () => {
    const l = await listing({ offerAutoDeclineBelow: 6000, offerAutoAcceptAt: 9000 });
    const res = await offer(buyer, { listingId: l.id, quantity: 1, unitPrice: 5999 }).expect(201);
    expect(res.body).toMatchObject({ status: 'DECLINED', endedReason: 'auto-decline', expiresAt: null, nextActions: [] });
    expect(res.body.history.map((h: { by: string; action: string }) => `${h.by}:${h.action}`)).toEqual([
      'BUYER:offer',
      'SYSTEM:auto-decline',
    ]);
    expect(await events(res.body.id)).toEqual([
      { type: 'OFFER_RECEIVED', status: 'PENDING', reason: null },
      { type: 'OFFER_DECLINED', status: 'DECLINED', reason: 'auto-decline' },
    ]);
    expect(await db().query(`SELECT 1 FROM workflow_starts WHERE workflow_id = $1`, [`offer:${res.body.id}`])).toEqual([]);
  });

  it('accepts at autoAcceptAt, holding the units until payBy; a second buyer at the threshold waits for the seller', async () => {
    const l = await listing({ quantity: 1, offerAutoAcceptAt: 9000 });
    const res = await offer(buyer, { listingId: l.id, quantity: 1, unitPrice: 9000 }).expect(201);
    expect(res.body).toMatchObject({
      status: 'ACCEPTED',
      expiresAt: null,
      nextActions: [{ party: 'BUYER', action: 'pay', afterDue: 'lapse' }],
    });
    expect(res.body.history.map((h: { by: string; action: string }) => `${h.by}:${h.action}`)).toEqual([
      'BUYER:offer',
      'SYSTEM:auto-accept',
    ]);
    expect(new Date(res.body.payBy).getTime() - Date.now()).toBeGreaterThan(47.9 * 3600_000);
    const [row] = await db().query(`SELECT reserved FROM listings WHERE id = $1`, [l.id]);
    expect(row.reserved).toBe(1);
    expect((await events(res.body.id)).map((e) => e.type)).toEqual(['OFFER_RECEIVED', 'OFFER_ACCEPTED']);
    // The unit is held: the listing is not live, so nobody else can offer on it now.
    expect((await offer(otherBuyer, { listingId: l.id, quantity: 1, unitPrice: 9500 }).expect(409)).body.type).toBe(
      '/problems/offer-listing-unavailable',
    );
  });
});

describe('reading and ownership', () => {
  it("lists the caller's own offers by side, filtered; another's offer is 404 on every route", async () => {
    const l = await listing();
    const mine = (await offer(buyer, { listingId: l.id, quantity: 1, unitPrice: 7000 }).expect(201)).body;
    const page = await api.http.get('/user/offers').query({ status: 'PENDING' }).set(buyer.bearer).expect(200);
    expect(page.body).toMatchObject({ page: 1, size: 20 });
    expect(page.body.total).toBe(page.body.items.length);
    expect(page.body.items.map((o: { id: string }) => o.id)).toContain(mine.id);
    expect(page.body.items.every((o: { buyer: { id: string } }) => o.buyer.id === buyer.id)).toBe(true);
    const seen = await api.http.get('/seller/offers').query({ listingId: l.id }).set(seller.bearer).expect(200);
    expect(seen.body).toEqual({ items: [expect.objectContaining({ id: mine.id })], total: 1, page: 1, size: 20 });
    const due = await api.http
      .get('/seller/offers')
      .query({ listingId: l.id, dueBefore: new Date(Date.now() + 3600_000).toISOString() })
      .set(seller.bearer)
      .expect(200);
    expect(due.body).toEqual({ items: [], total: 0, page: 1, size: 20 });
    const soon = await api.http
      .get('/seller/offers')
      .query({ listingId: l.id, dueBefore: new Date(Date.now() + 49 * 3600_000).toISOString(), status: ['PENDING', 'COUNTERED'] })
      .set(seller.bearer)
      .expect(200);
    expect(soon.body.total).toBe(1);
    expect((await api.http.get(`/seller/offers/${mine.id}`).set(seller.bearer).expect(200)).body.listing.offers).toEqual({
      enabled: true,
      autoAcceptAt: null,
      autoDeclineBelow: null,
    });

    await api.http.get(`/user/offers/${mine.id}`).set(otherBuyer.bearer).expect(404);
    await api.http.get(`/seller/offers/${mine.id}`).set(otherSeller.bearer).expect(404);
    // The buyer is not the seller of their own offer, and the other way round.
    await api.http.get(`/seller/offers/${mine.id}`).set(buyer.bearer).expect(403);
    await api.http.get(`/user/offers/${mine.id}`).set(seller.bearer).expect(404);
    await api.http.put(`/user/offers/${mine.id}`).set(otherBuyer.bearer).send({ action: 'withdraw' }).expect(404);
    await api.http.put(`/seller/offers/${mine.id}`).set(otherSeller.bearer).send({ action: 'accept' }).expect(404);
    await api.http
      .post(`/user/offers/${mine.id}/checkout`)
      .set(otherBuyer.bearer)
      .send({
        successUrl: 'https://shop.example/done',
        deliveryAddress: { name: 'A', line1: '1 Road', city: 'Leeds', state: '', postal_code: 'LS1 1AA', country: 'GB' },
      })
      .expect(404);
  });

  it('refuses moves on a closed offer without asking the workflow, and malformed moves as 400', async () => {
    const l = await listing({ offerAutoDeclineBelow: 9000 });
    const declined = (await offer(buyer, { listingId: l.id, quantity: 1, unitPrice: 100 }).expect(201)).body;
    expect((await api.http.put(`/user/offers/${declined.id}`).set(buyer.bearer).send({ action: 'withdraw' }).expect(409)).body.type).toBe(
      '/problems/offer-closed',
    );
    await api.http.put(`/seller/offers/${declined.id}`).set(seller.bearer).send({ action: 'withdraw' }).expect(400);
    await api.http.put(`/seller/offers/${declined.id}`).set(seller.bearer).send({ action: 'counter' }).expect(400);
    await api.http
      .put(`/seller/offers/${declined.id}`)
      .set(seller.bearer)
      .send({ action: 'counter', unitPrice: 9000, quantity: 2 })
      .expect(400);
    await api.http.put(`/user/offers/${declined.id}`).set(buyer.bearer).send({ action: 'accept', unitPrice: 5 }).expect(400);
    expect(
      (
        await api.http
          .post(`/user/offers/${declined.id}/checkout`)
          .set(buyer.bearer)
          .send({
            successUrl: 'https://shop.example/done',
            deliveryAddress: { name: 'A', line1: '1 Road', city: 'Leeds', state: '', postal_code: 'LS1 1AA', country: 'GB' },
          })
          .expect(409)
      ).body.type,
    ).toBe('/problems/offer-not-accepted');
  });
});
