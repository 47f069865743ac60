import { registerUser, startTestApi, type TestApi } from '../support/api';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('POST /auth/register', () => {
  it('creates a user and returns a working token pair', async () => {
    const user = await registerUser(api);
    expect(user.accessToken.split('.')).toHaveLength(3);
    expect(user.refreshToken).toMatch(/^mts_rt_/);
    const stored = await api.database.db.query('SELECT password_hash FROM users WHERE id = $1', [user.id]);
    expect(stored[0].password_hash).toMatch(/^scrypt\$/);
    expect(stored[0].password_hash).not.toContain(user.password);
  });

  it('refuses a taken e-mail or username, case-insensitively, with 409', async () => {
    const user = await registerUser(api);
    const res = await api.http
      .post('/auth/register')
      .send({ email: user.email.toUpperCase(), username: 'someoneelse1', password: 'long enough password' });
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('/problems/email-taken');
    const again = await api.http
      .post('/auth/register')
      .send({ email: 'fresh@example.test', username: user.username.toUpperCase(), password: 'long enough password' });
    expect(again.status).toBe(409);
    expect(again.body.type).toBe('/problems/username-taken');
  });

  it('answers bad input with problem+json naming every field, and stores nothing', async () => {
    const before = await api.database.db.query('SELECT count(*)::int AS n FROM users');
    const res = await api.http.post('/auth/register').send({ email: 'nope', username: '!', password: 'short', admin: true });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ type: '/problems/validation-failed', status: 400, title: 'Bad Request' });
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['admin', 'email', 'password', 'username']);
    const after = await api.database.db.query('SELECT count(*)::int AS n FROM users');
    expect(after[0].n).toBe(before[0].n);
  });
});

describe('POST /oauth/token', () => {
  it('password grant accepts the username or the e-mail, as JSON or form', async () => {
    const user = await registerUser(api);
    const json = await api.http
      .post('/oauth/token')
      .send({ grant_type: 'password', username: user.username, password: user.password })
      .expect(200);
    expect(json.body).toMatchObject({ token_type: 'Bearer', expires_in: 900 });
    expect(json.headers['cache-control']).toBe('no-store');
    const form = await api.http
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'password', username: user.email, password: user.password })
      .expect(200);
    await api.http.get('/seller/status').set('Authorization', `Bearer ${form.body.access_token}`).expect(403);
  });

  it('rejects a wrong password and an unknown user alike', async () => {
    const user = await registerUser(api);
    const wrong = await api.http
      .post('/oauth/token')
      .send({ grant_type: 'password', username: user.username, password: 'wrong password!' });
    const unknown = await api.http
      .post('/oauth/token')
      .send({ grant_type: 'password', username: 'nobody-here', password: 'wrong password!' });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(400);
      // RFC 6749 §5.2: OAuth clients parse application/json {error, error_description}.
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'The username or password is incorrect.' });
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('rotates refresh tokens: each works once, and reusing a spent one revokes the family', async () => {
    const user = await registerUser(api);
    const first = await api.http.post('/oauth/token').send({ grant_type: 'refresh_token', refresh_token: user.refreshToken }).expect(200);
    const second = first.body.refresh_token as string;
    expect(second).not.toBe(user.refreshToken);

    // The spent original is replayed: refused, and the live descendant dies with it.
    const replay = await api.http.post('/oauth/token').send({ grant_type: 'refresh_token', refresh_token: user.refreshToken });
    expect(replay.status).toBe(400);
    const descendant = await api.http.post('/oauth/token').send({ grant_type: 'refresh_token', refresh_token: second });
    expect(descendant.status).toBe(400);
  });

  it('lets only one of two concurrent refreshes with the same token succeed', async () => {
    const user = await registerUser(api);
    const results = await Promise.all(
      [1, 2, 3].map(() => api.http.post('/oauth/token').send({ grant_type: 'refresh_token', refresh_token: user.refreshToken })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
  });

  it('validates the grant: an unknown grant type, a missing parameter and an unreadable body are OAuth errors', async () => {
    const unknownGrant = await api.http.post('/oauth/token').send({ grant_type: 'client_credentials' });
    expect(unknownGrant.status).toBe(400);
    expect(unknownGrant.headers['content-type']).toMatch(/^application\/json/);
    expect(unknownGrant.body).toMatchObject({ error: 'unsupported_grant_type', error_description: expect.stringContaining('grant_type') });

    const missing = await api.http.post('/oauth/token').type('form').send({ grant_type: 'password', username: 'someone' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('password') });

    const malformed = await api.http.post('/oauth/token').set('Content-Type', 'application/json').send('{"grant_type":');
    expect(malformed.status).toBe(400);
    expect(malformed.headers['content-type']).toMatch(/^application\/json/);
    expect(malformed.body.error).toBe('invalid_request');
  });

  it('issues RFC 9068 access tokens naming the issuer and carrying a unique jti', async () => {
    const user = await registerUser(api);
    const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
    const first = claims(user.accessToken);
    const again = await api.http
      .post('/oauth/token')
      .send({ grant_type: 'password', username: user.username, password: user.password })
      .expect(200);
    const second = claims(again.body.access_token);
    expect(first).toMatchObject({ iss: api.baseUrl, aud: 'marketplace-api', sub: user.id });
    expect(first.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.jti).not.toBe(first.jti);
  });
});

describe('authentication of protected routes', () => {
  it('answers 401 problem+json with a challenge for missing or invalid credentials', async () => {
    for (const header of [undefined, 'Bearer not-a-jwt', 'ApiKey mts_pat_unknown', 'Basic abc']) {
      const req = api.http.get('/user/personal-access-tokens');
      const res = await (header ? req.set('Authorization', header) : req);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toContain('Bearer');
      expect(res.body.type).toBe('/problems/unauthenticated');
    }
  });

  it('says in the challenge when sent credentials were refused (RFC 6750 invalid_token), and not when none were sent', async () => {
    const none = await api.http.get('/user/personal-access-tokens').expect(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="marketplace", ApiKey realm="marketplace"');
    const badBearer = await api.http.get('/user/personal-access-tokens').set('Authorization', 'Bearer not-a-jwt').expect(401);
    expect(badBearer.headers['www-authenticate']).toMatch(
      /^Bearer realm="marketplace", error="invalid_token", error_description="[^"]+", ApiKey realm="marketplace"$/,
    );
    expect(badBearer.body.detail).toBe('The access token or API key is invalid, expired or revoked.');
    const badKey = await api.http.get('/user/personal-access-tokens').set('Authorization', 'ApiKey mts_pat_unknown').expect(401);
    expect(badKey.headers['www-authenticate']).toMatch(/^Bearer realm="marketplace", ApiKey realm="marketplace", error="invalid_token"/);
    // An unknown scheme is no credential the API takes: no error code.
    const basic = await api.http.get('/user/personal-access-tokens').set('Authorization', 'Basic abc').expect(401);
    expect(basic.headers['www-authenticate']).toBe('Bearer realm="marketplace", ApiKey realm="marketplace"');
  });
});
