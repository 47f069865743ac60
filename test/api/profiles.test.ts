import { newId } from '../../src/ids';
import { registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { insertPurchase } from '../support/orders';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

/** Reviews as rows (dated, which the API cannot do), each on its own order, with aggregates kept in step. */
async function review(
  reviewer: TestUser,
  reviewed: TestUser,
  rating: number,
  createdAt: Date,
  content: string | null = null,
): Promise<string> {
  const id = newId();
  const { orderIds } = await insertPurchase(api.database.db, { buyerId: reviewer.id, sellerIds: [reviewed.id] });
  await api.database.db.query(
    `INSERT INTO reviews (id, order_id, reviewer_id, reviewed_user_id, rating, content, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
    [id, orderIds[0], reviewer.id, reviewed.id, rating, content, createdAt],
  );
  await api.database.db.query(`UPDATE users SET reviews_count = reviews_count + 1, rating_sum = rating_sum + $2 WHERE id = $1`, [
    reviewed.id,
    rating,
  ]);
  return id;
}

describe('public profiles', () => {
  it('answers the user summary by id or by username in any case', async () => {
    const user = await registerUser(api, 'Profile');
    const a = await registerUser(api);
    await review(a, user, 5, new Date('2026-01-01'));
    await review(a, user, 2, new Date('2026-01-02'));
    await api.database.db.query(`UPDATE users SET sales_count = 7, purchases_count = 3 WHERE id = $1`, [user.id]);

    const byId = await api.http.get(`/profile/${user.id}`).expect(200);
    expect(byId.body).toEqual({
      id: user.id,
      username: user.username,
      reviews: 2,
      rating: 3.5,
      score: 3.86, // (7 + 4 × 5) / (2 + 5)
      sales: 7,
      purchases: 3,
      joined: expect.any(String),
      avatar: null,
      cover: null,
      profile: null,
    });
    expect(byId.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    const byName = await api.http.get(`/profile/${user.username.toUpperCase()}`).expect(200);
    expect(byName.body.id).toBe(user.id);
  });

  it('answers 404 for an unknown id or username', async () => {
    await api.http.get(`/profile/${newId()}`).expect(404);
    await api.http.get('/profile/nobody-here').expect(404);
  });

  it('pages the reviews received, newest first, as Review resources with both parties', async () => {
    const user = await registerUser(api);
    const [x, y] = [await registerUser(api), await registerUser(api)];
    const older = await review(x, user, 4, new Date('2026-02-01'), 'Quick dispatch');
    const newer = await review(y, user, 5, new Date('2026-03-01'));
    await review(user, x, 1, new Date('2026-03-02')); // written, not received

    const first = await api.http.get(`/profile/${user.username}/reviews`).query({ size: 1 }).expect(200);
    expect(first.body).toMatchObject({ total: 2, page: 1, size: 1 });
    expect(first.body.items).toEqual([
      {
        id: newer,
        rating: 5,
        revisions: 0,
        source: { id: expect.any(String), type: 'ORDER' },
        reviewedUser: expect.objectContaining({ id: user.id, reviews: 2 }),
        reviewer: expect.objectContaining({ id: y.id }),
        content: null,
        automatic: false,
        createdAt: '2026-03-01T00:00:00.000Z',
      },
    ]);
    const second = await api.http.get(`/profile/${user.id}/reviews`).query({ page: 2, size: 1 }).expect(200);
    expect(second.body).toMatchObject({ total: 2, page: 2, size: 1 });
    expect(second.body.items.map((r: { id: string; content: string }) => [r.id, r.content])).toEqual([[older, 'Quick dispatch']]);
    await api.http.get(`/profile/${user.id}/reviews`).query({ size: 100 }).expect(400);
  });
});
