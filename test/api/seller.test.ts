import { registerUser, startTestApi, type TestApi } from '../support/api';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('seller accounts', () => {
  it('refuses /seller/* to a caller without a seller account with 403 seller-account-required', async () => {
    const user = await registerUser(api);
    const res = await api.http.get('/seller/status').set(user.bearer).expect(403);
    expect(res.body.type).toBe('/problems/seller-account-required');
  });

  it('onboards once; a second onboarding is a conflict', async () => {
    const user = await registerUser(api);
    const created = await api.http.post('/seller').set(user.bearer).expect(201);
    expect(created.body).toMatchObject({ userId: user.id, status: 'ACTIVE', vacation: false });
    await api.http.post('/seller').set(user.bearer).expect(409);
    const status = await api.http.get('/seller/status').set(user.bearer).expect(200);
    expect(status.body.userId).toBe(user.id);
  });

  it('treats a suspended seller like one without an account', async () => {
    const user = await registerUser(api);
    await api.http.post('/seller').set(user.bearer).expect(201);
    await api.database.db.query(`UPDATE seller_accounts SET status = 'SUSPENDED' WHERE user_id = $1`, [user.id]);
    await api.http.get('/seller/status').set(user.bearer).expect(403);
  });
});
