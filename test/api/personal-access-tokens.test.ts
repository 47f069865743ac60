import { registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const DAY = 24 * 60 * 60 * 1000;
const create = (user: TestUser, body: object) => api.http.post('/user/personal-access-tokens').set(user.bearer).send(body);
const apiKey = (token: string) => ({ Authorization: `ApiKey ${token}` });

describe('personal access tokens', () => {
  it('creates, authenticates with ApiKey, lists without secrets, and revokes by name at once', async () => {
    const user = await registerUser(api);
    const created = await create(user, { name: 'ci' }).expect(201);
    expect(created.body).toMatchObject({ name: 'ci', expires: null, lastUsed: null });
    expect(created.body.token).toMatch(/^mts_pat_/);

    // Stored only as a hash.
    const rows = await api.database.db.query('SELECT token_hash FROM personal_access_tokens WHERE user_id = $1', [user.id]);
    expect(rows[0].token_hash).toHaveLength(64);
    expect(rows[0].token_hash).not.toContain(created.body.token);

    await api.http.post('/seller').set(apiKey(created.body.token)).expect(201);
    const status = await api.http.get('/seller/status').set(apiKey(created.body.token)).expect(200);
    expect(status.body).toMatchObject({ userId: user.id, status: 'ACTIVE', vacation: false });

    const list = await api.http.get('/user/personal-access-tokens').set(user.bearer).expect(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toEqual({ name: 'ci', createdAt: expect.any(String), expires: null, lastUsed: expect.any(String) });
    expect(JSON.stringify(list.body)).not.toContain(created.body.token);

    await api.http.delete('/user/personal-access-tokens').set(user.bearer).send({ name: 'ci' }).expect(204);
    const after = await api.http.get('/seller/status').set(apiKey(created.body.token));
    expect(after.status).toBe(401);
    await api.http.delete('/user/personal-access-tokens').set(user.bearer).send({ name: 'ci' }).expect(404);
  });

  it('allows at most 5 active tokens, even under concurrent creation', async () => {
    const user = await registerUser(api);
    const results = await Promise.all([1, 2, 3, 4, 5, 6, 7].map((i) => create(user, { name: `t${i}` })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.map((r) => r.status)).toEqual([409, 409]);
    expect(refused[0]!.body.type).toBe('/problems/pat-limit-reached');
    const sixth = await create(user, { name: 'sixth' });
    expect(sixth.status).toBe(409);
    // At the limit, a taken name is still answered as the name being taken: the mistake in the request.
    const taken = await create(user, { name: (results.find((r) => r.status === 201)!.body as { name: string }).name });
    expect(taken.status).toBe(409);
    expect(taken.body.type).toBe('/problems/pat-name-taken');
  });

  it('does not count expired tokens as active', async () => {
    const user = await registerUser(api);
    for (let i = 0; i < 5; i++) await create(user, { name: `old${i}` }).expect(201);
    await api.database.db.query(`UPDATE personal_access_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [user.id]);
    await create(user, { name: 'new' }).expect(201);
  });

  it('keeps names unique per user, but not across users', async () => {
    const a = await registerUser(api);
    const b = await registerUser(api);
    await create(a, { name: 'deploy' }).expect(201);
    const dup = await create(a, { name: 'deploy' });
    expect(dup.status).toBe(409);
    expect(dup.body.type).toBe('/problems/pat-name-taken');
    await create(b, { name: 'deploy' }).expect(201);
    // Deleting by a name only touches the caller's own token.
    await api.http.delete('/user/personal-access-tokens').set(b.bearer).send({ name: 'deploy' }).expect(204);
    const aList = await api.http.get('/user/personal-access-tokens').set(a.bearer).expect(200);
    expect(aList.body.map((t: { name: string }) => t.name)).toEqual(['deploy']);
  });

  it('validates name length and expiry at least 24 hours ahead', async () => {
    const user = await registerUser(api);
    const cases: Array<[object, string]> = [
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(257) }, 'name'],
      [{ name: 'soon', expires: new Date(Date.now() + DAY - 60_000).toISOString() }, 'expires'],
      [{ name: 'bad', expires: 'tomorrow' }, 'expires'],
    ];
    for (const [body, field] of cases) {
      const res = await create(user, body);
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    const both = await create(user, { name: '', expires: new Date(Date.now() + 60_000).toISOString() });
    expect(both.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['expires', 'name']);
    await create(user, { name: 'x'.repeat(256), expires: new Date(Date.now() + DAY + 60_000).toISOString() }).expect(201);
    const bad = await api.http
      .delete('/user/personal-access-tokens')
      .set(user.bearer)
      .send({ name: 'y'.repeat(257) });
    expect(bad.status).toBe(400);
    const listed = await api.http.get('/user/personal-access-tokens').set(user.bearer).expect(200);
    expect(listed.body).toHaveLength(1);
  });

  it('refuses expired tokens', async () => {
    const user = await registerUser(api);
    const created = await create(user, { name: 'short', expires: new Date(Date.now() + 2 * DAY).toISOString() }).expect(201);
    await api.database.db.query(`UPDATE personal_access_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [user.id]);
    await api.http.post('/seller').set(apiKey(created.body.token)).expect(401);
  });

  it('manages tokens only with an access token, not with a PAT', async () => {
    const user = await registerUser(api);
    const created = await create(user, { name: 'robot' }).expect(201);
    const res = await api.http.post('/user/personal-access-tokens').set(apiKey(created.body.token)).send({ name: 'child' });
    expect(res.status).toBe(403);
    expect(res.body.type).toBe('/problems/bearer-token-required');
  });
});
