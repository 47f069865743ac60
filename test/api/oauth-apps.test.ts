import { OAuthApps } from '../../src/services/auth/oauth-apps';
import { registerSeller, registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';
import { pkce } from '../support/oauth';

let api: TestApi;
let apps: OAuthApps;
beforeAll(async () => {
  api = await startTestApi();
  apps = new OAuthApps(api.database.db);
});
afterAll(() => api.close());

const REDIRECT = 'https://deckbuilder.example/callback';

async function registerApp(confidential = true) {
  return apps.register({ name: 'Deck <Builder>', redirectUris: [REDIRECT, 'https://deckbuilder.example/other'], confidential });
}

const authorizeQuery = (clientId: string, challenge: string, extra: Record<string, string> = {}) => ({
  response_type: 'code',
  client_id: clientId,
  redirect_uri: REDIRECT,
  state: 'xyz-123',
  code_challenge: challenge,
  code_challenge_method: 'S256',
  ...extra,
});

/** The redirect's query, asserting it goes back to the registered redirect URI. */
function redirectParams(res: { status: number; headers: Record<string, string> }): URLSearchParams {
  expect(res.status).toBe(303);
  const url = new URL(res.headers.location!);
  expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
  // RFC 9207: every authorization response names the issuer.
  expect(url.searchParams.get('iss')).toBe(api.baseUrl);
  return url.searchParams;
}

async function authorize(user: TestUser, clientId: string, challenge: string): Promise<string> {
  const res = await api.http
    .post('/oauth/authorize')
    .type('form')
    .send({ ...authorizeQuery(clientId, challenge), username: user.username, password: user.password, decision: 'allow' });
  const params = redirectParams(res);
  expect(params.get('state')).toBe('xyz-123');
  return params.get('code')!;
}

/** Links the app for the user through the whole code flow; returns the token response. */
async function link(user: TestUser, app: { client: { id: string }; clientSecret: string | null }) {
  const { verifier, challenge } = pkce();
  const code = await authorize(user, app.client.id, challenge);
  const res = await api.http
    .post('/oauth/token')
    .type('form')
    .send({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: app.client.id,
      ...(app.clientSecret ? { client_secret: app.clientSecret } : {}),
    })
    .expect(200);
  return res.body as { access_token: string; refresh_token: string; expires_in: number; token_type: string };
}

describe('third-party applications: authorization code with PKCE', () => {
  it('the authorization page names the application (escaped) and carries the request into its form', async () => {
    const app = await registerApp();
    const res = await api.http.get('/oauth/authorize').query(authorizeQuery(app.client.id, pkce().challenge)).expect(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('Deck &lt;Builder&gt;');
    expect(res.text).not.toContain('Deck <Builder>');
    expect(res.text).toContain('name="state" value="xyz-123"');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('an unknown application or an unregistered redirect URI is shown to the user, never redirected', async () => {
    const app = await registerApp();
    const { challenge } = pkce();
    const unknown = await api.http.get('/oauth/authorize').query(authorizeQuery('mts_app_nope', challenge)).expect(400);
    expect(unknown.headers.location).toBeUndefined();
    expect(unknown.text).toContain('not registered');
    const evil = await api.http
      .get('/oauth/authorize')
      .query(authorizeQuery(app.client.id, challenge, { redirect_uri: 'https://evil.example/cb' }))
      .expect(400);
    expect(evil.headers.location).toBeUndefined();
    // Posting the form cannot bypass it either.
    const posted = await api.http
      .post('/oauth/authorize')
      .type('form')
      .send({ ...authorizeQuery(app.client.id, challenge, { redirect_uri: 'https://evil.example/cb' }), decision: 'deny' });
    expect(posted.status).toBe(400);
  });

  it('other invalid requests go back to the application with the error and state', async () => {
    const app = await registerApp();
    const noPkce = await api.http.get('/oauth/authorize').query({ ...authorizeQuery(app.client.id, 'x'), code_challenge: undefined });
    expect(Object.fromEntries(redirectParams(noPkce))).toMatchObject({ error: 'invalid_request', state: 'xyz-123' });
    const plain = await api.http
      .get('/oauth/authorize')
      .query(authorizeQuery(app.client.id, pkce().challenge, { code_challenge_method: 'plain' }));
    expect(redirectParams(plain).get('error')).toBe('invalid_request');
    const token = await api.http.get('/oauth/authorize').query(authorizeQuery(app.client.id, pkce().challenge, { response_type: 'token' }));
    expect(redirectParams(token).get('error')).toBe('unsupported_response_type');
  });

  it('deny redirects with access_denied; a wrong password shows the page again and issues no code', async () => {
    const app = await registerApp();
    const user = await registerUser(api, 'oadeny');
    const { challenge } = pkce();
    const denied = await api.http
      .post('/oauth/authorize')
      .type('form')
      .send({ ...authorizeQuery(app.client.id, challenge), decision: 'deny' });
    expect(Object.fromEntries(redirectParams(denied))).toMatchObject({ error: 'access_denied', state: 'xyz-123' });
    const wrong = await api.http
      .post('/oauth/authorize')
      .type('form')
      .send({ ...authorizeQuery(app.client.id, challenge), username: user.username, password: 'not the password', decision: 'allow' })
      .expect(200);
    expect(wrong.text).toContain('The username or password is incorrect.');
    const [{ codes }] = await api.database.db.query(`SELECT count(*)::int AS codes FROM oauth_authorization_codes WHERE user_id = $1`, [
      user.id,
    ]);
    expect(codes).toBe(0);
  });

  it('links the user: the token acts as the user and as their seller account, but not on account-security routes', async () => {
    const app = await registerApp();
    const seller = await registerSeller(api, 'oalink');
    const tokens = await link(seller, app);
    expect(tokens.token_type).toBe('Bearer');
    const asApp = { Authorization: `Bearer ${tokens.access_token}` };
    await api.http.get('/basket').set(asApp).expect(200);
    await api.http.get('/seller/status').set(asApp).expect(200);
    const pats = await api.http.get('/user/personal-access-tokens').set(asApp).expect(403);
    expect(pats.body.type).toBe('/problems/bearer-token-required');
    await api.http.get('/user/applications').set(asApp).expect(403);

    const linked = await api.http.get('/user/applications').set(seller.bearer).expect(200);
    expect(linked.body).toEqual([{ clientId: app.client.id, name: 'Deck <Builder>', linkedAt: expect.any(String) }]);
  });

  it('a code works once, only with its verifier and for its application; a replayed code revokes what it issued', async () => {
    const app = await registerApp();
    const other = await registerApp();
    const user = await registerUser(api, 'oacode');
    const exchange = (code: string, verifier: string, client = app) =>
      api.http.post('/oauth/token').send({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        client_id: client.client.id,
        client_secret: client.clientSecret,
      });

    const wrongVerifier = pkce();
    const code1 = await authorize(user, app.client.id, wrongVerifier.challenge);
    const bad = await exchange(code1, pkce().verifier).expect(400);
    expect(bad.body).toEqual({ error: 'invalid_grant', error_description: 'The code_verifier does not match the code_challenge.' });
    // The failed attempt spent the code: the right verifier no longer helps.
    await exchange(code1, wrongVerifier.verifier).expect(400);

    const p2 = pkce();
    const code2 = await authorize(user, app.client.id, p2.challenge);
    await exchange(code2, p2.verifier, other).expect(400);

    const p3 = pkce();
    const code3 = await authorize(user, app.client.id, p3.challenge);
    const first = await exchange(code3, p3.verifier).expect(200);
    const firstAccess = { Authorization: `Bearer ${first.body.access_token}` };
    await api.http.get('/basket').set(firstAccess).expect(200);
    const replay = await exchange(code3, p3.verifier).expect(400);
    expect(replay.body.error).toBe('invalid_grant');
    // Both halves of what the first exchange issued are revoked: its access token from the next request on...
    await api.http.get('/basket').set(firstAccess).expect(401);
    const introspected = await api.http
      .post('/oauth/introspect')
      .type('form')
      .send({ token: first.body.access_token, client_id: app.client.id, client_secret: app.clientSecret })
      .expect(200);
    expect(introspected.body).toEqual({ active: false });
    // ...and its refresh token.
    await api.http
      .post('/oauth/token')
      .send({
        grant_type: 'refresh_token',
        refresh_token: first.body.refresh_token,
        client_id: app.client.id,
        client_secret: app.clientSecret,
      })
      .expect(400);
  });

  it('a code whose authorization request named redirect_uri needs it at the token endpoint too (RFC 6749 §4.1.3)', async () => {
    const app = await registerApp();
    const user = await registerUser(api, 'oaredir');
    const exchange = (code: string, verifier: string, redirectUri?: string) =>
      api.http.post('/oauth/token').send({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        ...(redirectUri ? { redirect_uri: redirectUri } : {}),
        client_id: app.client.id,
        client_secret: app.clientSecret,
      });

    const p1 = pkce();
    const code1 = await authorize(user, app.client.id, p1.challenge);
    const missing = await exchange(code1, p1.verifier).expect(400);
    expect(missing.body).toEqual({
      error: 'invalid_grant',
      error_description: 'redirect_uri is required: the authorization request included one.',
    });
    // Spent by the attempt, like any other refused exchange.
    await exchange(code1, p1.verifier, REDIRECT).expect(400);

    // An application with one registered URI may leave it out of both requests.
    const single = await apps.register({ name: 'One URI', redirectUris: [REDIRECT], confidential: false });
    const p2 = pkce();
    const query: Record<string, string> = authorizeQuery(single.client.id, p2.challenge);
    delete query.redirect_uri;
    const allowed = await api.http
      .post('/oauth/authorize')
      .type('form')
      .send({
        ...query,
        username: user.username,
        password: user.password,
        decision: 'allow',
      });
    const code2 = redirectParams(allowed).get('code')!;
    await api.http
      .post('/oauth/token')
      .send({ grant_type: 'authorization_code', code: code2, code_verifier: p2.verifier, client_id: single.client.id })
      .expect(200);
  });

  it('client authentication: a confidential application needs its secret (body or Basic); a public one uses PKCE alone', async () => {
    const app = await registerApp(true);
    const user = await registerUser(api, 'oaclient');
    const p = pkce();
    const code = await authorize(user, app.client.id, p.challenge);
    const noSecret = await api.http
      .post('/oauth/token')
      .send({ grant_type: 'authorization_code', code, code_verifier: p.verifier, client_id: app.client.id })
      .expect(401);
    expect(noSecret.body).toMatchObject({ error: 'invalid_client' });
    // RFC 6749 §5.2: a 401 from the token endpoint challenges with the client authentication scheme.
    expect(noSecret.headers['www-authenticate']).toBe('Basic realm="marketplace"');
    await api.http
      .post('/oauth/token')
      .send({ grant_type: 'authorization_code', code, code_verifier: p.verifier, client_id: app.client.id, client_secret: 'mts_cs_wrong' })
      .expect(401);
    // A refused client authentication does not spend the code.
    const basic = Buffer.from(`${encodeURIComponent(app.client.id)}:${encodeURIComponent(app.clientSecret!)}`).toString('base64');
    await api.http
      .post('/oauth/token')
      .set('Authorization', `Basic ${basic}`)
      .type('form')
      .send({ grant_type: 'authorization_code', code, code_verifier: p.verifier, redirect_uri: REDIRECT })
      .expect(200);

    const publicApp = await registerApp(false);
    expect(publicApp.clientSecret).toBeNull();
    const tokens = await link(user, publicApp);
    await api.http
      .get('/basket')
      .set({ Authorization: `Bearer ${tokens.access_token}` })
      .expect(200);
  });

  it('refresh: only the application that holds the token, rotating; linking again replaces the previous tokens', async () => {
    const app = await registerApp();
    const other = await registerApp();
    const user = await registerUser(api, 'oarefresh');
    const first = await link(user, app);
    const refresh = (token: string, client = app) =>
      api.http
        .post('/oauth/token')
        .send({ grant_type: 'refresh_token', refresh_token: token, client_id: client.client.id, client_secret: client.clientSecret });

    await api.http.post('/oauth/token').send({ grant_type: 'refresh_token', refresh_token: first.refresh_token }).expect(401);
    await refresh(first.refresh_token, other).expect(400);
    const rotated = await refresh(first.refresh_token).expect(200);
    await api.http
      .get('/basket')
      .set({ Authorization: `Bearer ${rotated.body.access_token}` })
      .expect(200);

    const second = await link(user, app);
    await refresh(rotated.body.refresh_token).expect(400);
    await refresh(second.refresh_token).expect(200);
    expect((await api.http.get('/user/applications').set(user.bearer).expect(200)).body).toHaveLength(1);
  });

  it('unlinking, or the operator disabling the application, stops its tokens at once', async () => {
    const app = await registerApp();
    const user = await registerUser(api, 'oaunlink');
    const tokens = await link(user, app);
    const asApp = { Authorization: `Bearer ${tokens.access_token}` };
    await api.http.get('/basket').set(asApp).expect(200);

    await api.http.delete(`/user/applications/${app.client.id}`).set(user.bearer).expect(204);
    await api.http.get('/basket').set(asApp).expect(401);
    await api.http
      .post('/oauth/token')
      .send({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: app.client.id, client_secret: app.clientSecret })
      .expect(400);
    await api.http.delete(`/user/applications/${app.client.id}`).set(user.bearer).expect(404);
    // Another user's link is untouched by this user's unlink, and cannot be unlinked by them.
    const other = await registerUser(api, 'oaother');
    const otherTokens = await link(other, app);
    await api.http.delete(`/user/applications/${app.client.id}`).set(user.bearer).expect(404);
    await api.http
      .get('/basket')
      .set({ Authorization: `Bearer ${otherTokens.access_token}` })
      .expect(200);

    await apps.setDisabled(app.client.id, true);
    await api.http
      .get('/basket')
      .set({ Authorization: `Bearer ${otherTokens.access_token}` })
      .expect(401);
    await api.http.get('/oauth/authorize').query(authorizeQuery(app.client.id, pkce().challenge)).expect(400);
    await apps.setDisabled(app.client.id, false);
    await api.http
      .get('/basket')
      .set({ Authorization: `Bearer ${otherTokens.access_token}` })
      .expect(200);
  });

  it('registration refuses redirect URIs that cannot be compared safely', async () => {
    await expect(apps.register({ name: 'x', redirectUris: ['http://app.example/cb'], confidential: true })).rejects.toThrow('https');
    await expect(apps.register({ name: 'x', redirectUris: ['https://app.example/cb#frag'], confidential: true })).rejects.toThrow(
      'fragment',
    );
    await expect(apps.register({ name: 'x', redirectUris: ['/relative'], confidential: true })).rejects.toThrow('absolute');
    const local = await apps.register({ name: 'dev', redirectUris: ['http://127.0.0.1:8080/cb'], confidential: false });
    expect(local.client.redirectUris).toEqual(['http://127.0.0.1:8080/cb']);
  });
});
