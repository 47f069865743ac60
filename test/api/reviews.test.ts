import { registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertPurchase } from '../support/orders';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

/** A received order between a fresh buyer and a fresh seller. */
async function receivedOrder(orderStatus: 'SHIPPED' | 'RECEIVED' = 'RECEIVED') {
  const buyer = await registerUser(api, 'buyer');
  const seller = await registerUser(api, 'seller');
  const { orderIds } = await insertPurchase(api.database.db, { buyerId: buyer.id, sellerIds: [seller.id], orderStatus });
  return { buyer, seller, orderId: orderIds[0]! };
}

const write = (author: TestUser, orderId: string, rating: number, content?: string) =>
  api.http
    .post('/user/reviews')
    .set(author.bearer)
    .send({ source: { type: 'ORDER', id: orderId }, rating, content });

/** The aggregates as the public profile shows them. */
async function aggregates(user: TestUser) {
  const res = await api.http.get(`/profile/${user.id}`).expect(200);
  return { reviews: res.body.reviews, rating: res.body.rating, score: res.body.score };
}

describe('writing a review', () => {
  it('lets the buyer review the seller and the seller review the buyer', async () => {
    const { buyer, seller, orderId } = await receivedOrder();
    const byBuyer = await write(buyer, orderId, 4, 'Well packed').expect(201);
    expect(byBuyer.body).toMatchObject({
      rating: 4,
      revisions: 0,
      source: { id: orderId, type: 'ORDER' },
      reviewedUser: { id: seller.id, reviews: 1, rating: 4 },
      reviewer: { id: buyer.id },
      content: 'Well packed',
      automatic: false,
    });
    const bySeller = await write(seller, orderId, 5).expect(201);
    expect(bySeller.body).toMatchObject({ reviewedUser: { id: buyer.id }, content: null });
  });

  it('answers 404 to a third party, as if the order did not exist', async () => {
    const { orderId } = await receivedOrder();
    const stranger = await registerUser(api);
    const res = await write(stranger, orderId, 1).expect(404);
    expect(res.body.type).toBe('/problems/not-found');
    const [{ count }] = await api.database.db.query(`SELECT count(*)::int AS count FROM reviews WHERE order_id = $1`, [orderId]);
    expect(count).toBe(0);
  });

  it('refuses a review of oneself (an order with the caller on both sides)', async () => {
    const user = await registerUser(api);
    const { orderIds } = await insertPurchase(api.database.db, { buyerId: user.id, sellerIds: [user.id] });
    const res = await write(user, orderIds[0]!, 5).expect(403);
    expect(res.body.type).toBe('/problems/self-review');
    expect(await aggregates(user)).toEqual({ reviews: 0, rating: 0, score: 4 });
  });

  it('refuses a second review of the same order by the same reviewer, leaving the first', async () => {
    const { buyer, seller, orderId } = await receivedOrder();
    await write(buyer, orderId, 2).expect(201);
    const dup = await write(buyer, orderId, 5).expect(409);
    expect(dup.body.type).toBe('/problems/review-exists');
    expect(await aggregates(seller)).toEqual({ reviews: 1, rating: 2, score: 3.67 });
  });

  it('is backed by the database: a second row for the same order and reviewer is refused', async () => {
    const { buyer, orderId } = await receivedOrder();
    const { body } = await write(buyer, orderId, 3).expect(201);
    await expect(
      api.database.db.query(
        `INSERT INTO reviews (id, order_id, reviewer_id, reviewed_user_id, rating) SELECT gen_random_uuid(), order_id, reviewer_id, reviewed_user_id, 1 FROM reviews WHERE id = $1`,
        [body.id],
      ),
    ).rejects.toThrow(/reviews_one_per_order_and_reviewer/);
  });

  it('waits until the order is received', async () => {
    const { buyer, orderId } = await receivedOrder('SHIPPED');
    const res = await write(buyer, orderId, 5).expect(409);
    expect(res.body.type).toBe('/problems/order-not-received');
  });

  it('takes whole ratings from 1 to 5 only, and changes nothing otherwise', async () => {
    const { buyer, seller, orderId } = await receivedOrder();
    for (const rating of [0, 6, 4.5, 'five']) {
      const res = await write(buyer, orderId, rating as number).expect(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ in: 'body', field: 'rating' })]);
    }
    expect(await aggregates(seller)).toEqual({ reviews: 0, rating: 0, score: 4 });
  });

  it('sanitises the content: markup and scripts are gone before it is saved', async () => {
    const { buyer, orderId } = await receivedOrder();
    const res = await write(buyer, orderId, 5, '<script>alert(1)</script><b>Great</b> seller <img src=x onerror="alert(2)">').expect(201);
    expect(res.body.content).toBe('Great seller');
    const [row] = await api.database.db.query(`SELECT content FROM reviews WHERE id = $1`, [res.body.id]);
    expect(row.content).toBe('Great seller');
  });

  it('accepts a personal access token', async () => {
    const { buyer, orderId } = await receivedOrder();
    const pat = await api.http.post('/user/personal-access-tokens').set(buyer.bearer).send({ name: 'reviews' }).expect(201);
    const token: string = pat.body.token;
    await api.http
      .post('/user/reviews')
      .set({ Authorization: `ApiKey ${token}` })
      .send({ source: { type: 'ORDER', id: orderId }, rating: 5 })
      .expect(201);
  });
});

describe('revising and deleting', () => {
  it('lets the author revise once; aggregates follow the rating difference; a second revision is 409', async () => {
    const { buyer, seller, orderId } = await receivedOrder();
    const { body } = await write(buyer, orderId, 2, 'Slow').expect(201);
    const revised = await api.http
      .put(`/user/reviews/${body.id}`)
      .set(buyer.bearer)
      .send({ rating: 5, content: 'Arrived <i>after all</i>' })
      .expect(200);
    expect(revised.body).toMatchObject({ id: body.id, rating: 5, revisions: 1, content: 'Arrived after all' });
    expect(await aggregates(seller)).toEqual({ reviews: 1, rating: 5, score: 4.17 });

    const again = await api.http.put(`/user/reviews/${body.id}`).set(buyer.bearer).send({ rating: 1 }).expect(409);
    expect(again.body.type).toBe('/problems/review-revision-limit');
    expect(await aggregates(seller)).toEqual({ reviews: 1, rating: 5, score: 4.17 });
  });

  it('answers 404 when someone else revises or deletes, and changes nothing', async () => {
    const { buyer, seller, orderId } = await receivedOrder();
    const { body } = await write(buyer, orderId, 3).expect(201);
    await api.http.put(`/user/reviews/${body.id}`).set(seller.bearer).send({ rating: 5 }).expect(404);
    await api.http.delete(`/user/reviews/${body.id}`).set(seller.bearer).expect(404);
    const [row] = await api.database.db.query(`SELECT rating, revisions FROM reviews WHERE id = $1`, [body.id]);
    expect(row).toEqual({ rating: 3, revisions: 0 });
  });

  it('lets the author delete for good; the aggregates and every read drop the review', async () => {
    const { buyer, seller, orderId } = await receivedOrder();
    const other = await receivedOrder();
    await insertPurchase(api.database.db, { buyerId: other.buyer.id, sellerIds: [seller.id] }).then(({ orderIds }) =>
      write(other.buyer, orderIds[0]!, 2).expect(201),
    );
    const { body } = await write(buyer, orderId, 5).expect(201);
    expect(await aggregates(seller)).toEqual({ reviews: 2, rating: 3.5, score: 3.86 });
    await api.http.delete(`/user/reviews/${body.id}`).set(buyer.bearer).expect(204);
    expect(await aggregates(seller)).toEqual({ reviews: 1, rating: 2, score: 3.67 });
    await api.http.delete(`/user/reviews/${body.id}`).set(buyer.bearer).expect(404);
    await api.http.put(`/user/reviews/${body.id}`).set(buyer.bearer).send({ rating: 1 }).expect(404);

    const mine = await api.http.get('/user/reviews?role=written').set(buyer.bearer).expect(200);
    expect(mine.body.total).toBe(0);
    const received = await api.http.get(`/profile/${seller.id}/reviews`).expect(200);
    expect(received.body).toMatchObject({ total: 1, page: 1, size: 20 });
    expect(received.body.items.map((r: { rating: number }) => r.rating)).toEqual([2]);
    // Deleting does not free the slot: otherwise delete-and-rewrite would bypass the revision limit.
    const again = await write(buyer, orderId, 5).expect(409);
    expect(again.body.type).toBe('/problems/review-exists');
    expect(await aggregates(seller)).toEqual({ reviews: 1, rating: 2, score: 3.67 });
  });
});

describe('aggregates under concurrency', () => {
  it('counts every one of many reviews of the same user written at once', async () => {
    const seller = await registerUser(api, 'popular');
    const buyers = await Promise.all(Array.from({ length: 12 }, () => registerUser(api, 'fan')));
    const orders = await Promise.all(buyers.map((b) => insertPurchase(api.database.db, { buyerId: b.id, sellerIds: [seller.id] })));
    const ratings = buyers.map((_, i) => (i % 5) + 1);
    await Promise.all(buyers.map((b, i) => write(b, orders[i]!.orderIds[0]!, ratings[i]!).expect(201)));
    const [row] = await api.database.db.query(`SELECT reviews_count, rating_sum FROM users WHERE id = $1`, [seller.id]);
    expect(row).toEqual({ reviews_count: 12, rating_sum: ratings.reduce((a, b) => a + b, 0) });
  });

  it('lets exactly one of two concurrent revisions through', async () => {
    const { buyer, seller, orderId } = await receivedOrder();
    const { body } = await write(buyer, orderId, 1).expect(201);
    const answers = await Promise.all([4, 5].map((rating) => api.http.put(`/user/reviews/${body.id}`).set(buyer.bearer).send({ rating })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const winner = answers.find((a) => a.status === 200)!.body.rating;
    expect((await aggregates(seller)).rating).toBe(winner);
  });
});

describe('the review window of a completing receipt', () => {
  it("is requested in the receipt's transaction, so the completion never waits for Temporal", async () => {
    // This API's Temporal client points at a closed port, and no dispatcher runs here.
    const buyer = await registerUser(api, 'buyer');
    const seller = await registerUser(api, 'seller');
    const { purchaseId, orderIds } = await insertPurchase(api.database.db, {
      buyerId: buyer.id,
      sellerIds: [seller.id],
      orderStatus: 'SHIPPED',
      purchaseStatus: 'PAID',
    });
    const res = await api.http
      .put(`/user/purchases/${purchaseId}`)
      .set(buyer.bearer)
      .send({ action: 'receive', orderId: orderIds[0] })
      .expect(200);
    expect(res.body.status).toBe('COMPLETED');
    const [{ completed_at }] = await api.database.db.query(`SELECT completed_at FROM purchases WHERE id = $1`, [purchaseId]);
    const intents = await api.database.db.query(
      `SELECT workflow_type, args, options, started_at FROM workflow_starts WHERE workflow_id = $1`,
      [`review-window:${purchaseId}`],
    );
    expect(intents).toEqual([
      {
        workflow_type: 'reviewWindowWorkflow',
        args: [{ purchaseId, completedAt: completed_at.toISOString(), windowSeconds: api.config.reviews.windowSeconds }],
        options: {
          reusePolicy: 'REJECT_DUPLICATE',
          summary: `Review window of purchase ${purchaseId}, closing ${new Date(completed_at.getTime() + api.config.reviews.windowSeconds * 1000).toISOString()}`,
        },
        started_at: null,
      },
    ]);
  });
});

describe('reading reviews', () => {
  it('pages the reviews the caller wrote and received', async () => {
    const { buyer, seller, orderId } = await receivedOrder();
    const written = await write(buyer, orderId, 4).expect(201);
    const received = await write(seller, orderId, 5).expect(201);

    const mine = await api.http.get('/user/reviews?role=written').set(buyer.bearer).expect(200);
    expect(mine.body).toMatchObject({ total: 1, page: 1, size: 20, items: [{ id: written.body.id }] });
    const theirs = await api.http.get('/user/reviews?role=received').set(buyer.bearer).expect(200);
    expect(theirs.body).toMatchObject({ total: 1, page: 1, size: 20 });
    expect(theirs.body.items.map((r: { id: string }) => r.id)).toEqual([received.body.id]);
    const both = await api.http.get('/user/reviews?size=1&page=2').set(buyer.bearer).expect(200);
    expect(both.body).toMatchObject({ total: 2, page: 2, size: 1, items: [{ id: written.body.id }] });
    await api.http.get('/user/reviews?role=everyone').set(buyer.bearer).expect(400);
  });

  it('shows the reviews received on the public profile and on the seller order, keyed by reviewer', async () => {
    const { buyer, seller, orderId } = await receivedOrder();
    await api.http.post('/seller').set(seller.bearer).expect(201);
    await write(buyer, orderId, 4).expect(201);
    await write(seller, orderId, 5).expect(201);
    const profile = await api.http.get(`/profile/${seller.id}/reviews`).expect(200);
    expect(profile.body).toMatchObject({ total: 1, page: 1, size: 20 });
    expect(profile.body.items).toEqual([expect.objectContaining({ rating: 4, reviewer: expect.objectContaining({ id: buyer.id }) })]);
    const order = await api.http.get(`/seller/orders/${orderId}`).set(seller.bearer).expect(200);
    expect(order.body.reviews).toEqual({ [buyer.id]: 4, [seller.id]: 5 });
  });

  it('needs a credential', async () => {
    const res = await api.http.get('/user/reviews').expect(401);
    expect(res.body.type).toBe('/problems/unauthenticated');
  });
});
