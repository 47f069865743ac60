import { loadConfig } from '../../src/config';
import { OAuthApps } from '../../src/services/auth/oauth-apps';
import { registerUser, startTestApi, type TestApi } from '../support/api';
import { authorizeCode, pkce } from '../support/oauth';

/** CORS (docs/conventions.md, "CORS"): an allow-list, no credentials, hosted pages closed. */
const APP = 'https://app.example';
const DEV = 'http://localhost:5173';
const OTHER = 'https://evil.example';
const REDIRECT = `${APP}/callback`;

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ env: { CORS_ALLOWED_ORIGINS: `${APP}, ${DEV}` } });
});
afterAll(() => api.close());

const corsHeaders = (headers: Record<string, string>) => Object.keys(headers).filter((name) => name.startsWith('access-control-'));

describe('CORS for allow-listed origins', () => {
  it('a preflight is answered 204 without authentication: the methods of the path, the headers the API reads, a max age', async () => {
    const res = await api.http
      .options('/user/account')
      .set('Origin', APP)
      .set('Access-Control-Request-Method', 'PATCH')
      .set('Access-Control-Request-Headers', 'authorization, content-type, idempotency-key')
      .expect(204);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
    expect(res.headers['access-control-allow-methods']).toBe('HEAD, GET, PATCH');
    expect(res.headers['access-control-allow-headers']).toBe('Authorization, Content-Type, Idempotency-Key, X-Request-Id');
    expect(Number(res.headers['access-control-max-age'])).toBeGreaterThan(0);
    expect(res.headers.vary).toMatch(/\bOrigin\b/);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.text).toBe('');
  });

  it('a preflight of a templated path lists its methods; a static sibling lists its own', async () => {
    const templated = await api.http
      .options('/seller/listings/lst_123')
      .set('Origin', DEV)
      .set('Access-Control-Request-Method', 'DELETE')
      .expect(204);
    expect(templated.headers['access-control-allow-origin']).toBe(DEV);
    expect(templated.headers['access-control-allow-methods']!.split(', ').sort()).toEqual(['DELETE', 'GET', 'HEAD', 'PUT']);
    const concrete = await api.http
      .options('/seller/listings/items')
      .set('Origin', DEV)
      .set('Access-Control-Request-Method', 'GET')
      .expect(204);
    expect(concrete.headers['access-control-allow-methods']).toBe('HEAD, GET');
  });

  it('the actual request carries Allow-Origin, Vary and the exposed headers, and no Allow-Credentials', async () => {
    const user = await registerUser(api, 'corsget');
    const res = await api.http.get('/user/account').set('Origin', APP).set(user.bearer).expect(200);
    expect(res.body.username).toBe(user.username);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
    expect(res.headers.vary).toMatch(/\bOrigin\b/);
    const exposed = res.headers['access-control-expose-headers']!.split(', ');
    expect(exposed).toEqual(expect.arrayContaining(['Location', 'Retry-After', 'Idempotent-Replayed', 'X-Request-Id', 'WWW-Authenticate']));
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('error answers are readable too: a 401 problem carries Allow-Origin and exposes WWW-Authenticate', async () => {
    const res = await api.http.get('/user/account').set('Origin', APP).expect(401);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(JSON.parse(res.text).status).toBe(401);
  });

  it('a path no route has: the preflight passes, so the 404 problem reaches the script', async () => {
    await api.http.options('/no/such/path').set('Origin', APP).set('Access-Control-Request-Method', 'GET').expect(204);
    const res = await api.http.get('/no/such/path').set('Origin', APP).expect(404);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
  });

  it('/oauth/token is reachable cross-origin: a public client exchanges its code with PKCE', async () => {
    const user = await registerUser(api, 'corstoken');
    const app = await new OAuthApps(api.database.db).register({ name: 'SPA', redirectUris: [REDIRECT], confidential: false });
    const { verifier, challenge } = pkce();
    const code = await authorizeCode(api, user, app.client.id, REDIRECT, challenge);

    const preflight = await api.http
      .options('/oauth/token')
      .set('Origin', APP)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type')
      .expect(204);
    expect(preflight.headers['access-control-allow-methods']).toBe('POST');
    const token = await api.http
      .post('/oauth/token')
      .set('Origin', APP)
      .type('form')
      .send({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: app.client.id })
      .expect(200);
    expect(token.headers['access-control-allow-origin']).toBe(APP);
    expect(token.headers['access-control-allow-credentials']).toBeUndefined();
    expect(token.body.access_token).toEqual(expect.any(String));
  });
});

describe('what CORS leaves alone', () => {
  it('a disallowed origin gets no CORS headers, and the request is answered as before', async () => {
    const user = await registerUser(api, 'corsother');
    const get = await api.http.get('/user/account').set('Origin', OTHER).set(user.bearer).expect(200);
    expect(corsHeaders(get.headers)).toEqual([]);
    expect(get.body.username).toBe(user.username);
    // Only what the browser sends exactly: no prefix, suffix or scheme match.
    for (const origin of [`${APP}.evil.example`, 'http://app.example', `${APP}:8443`, 'null']) {
      const res = await api.http.get('/healthz').set('Origin', origin).expect(200);
      expect(corsHeaders(res.headers)).toEqual([]);
    }
    const preflight = await api.http.options('/user/account').set('Origin', OTHER).set('Access-Control-Request-Method', 'GET');
    expect(corsHeaders(preflight.headers)).toEqual([]);
    expect(preflight.status).toBe(200);
    expect(preflight.headers.allow).toBe('HEAD, GET, PATCH');
  });

  it('without Origin the answer is unchanged but for Vary: Origin (shared caches keep the two apart)', async () => {
    const res = await api.http.get('/healthz').expect(200);
    expect(corsHeaders(res.headers)).toEqual([]);
    expect(res.headers.vary).toMatch(/\bOrigin\b/);
  });

  it('an OPTIONS that is no preflight keeps the router answer: 200 with Allow', async () => {
    const res = await api.http.options('/user/account').set('Origin', APP).expect(200);
    expect(res.headers.allow).toBe('HEAD, GET, PATCH');
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
  });

  it('hosted HTML pages and the forms they post are not opened to other origins', async () => {
    const page = await api.http.get('/oauth/authorize').set('Origin', APP).query({ client_id: 'mts_app_nope' }).expect(400);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(corsHeaders(page.headers)).toEqual([]);
    const form = await api.http.post('/oauth/authorize').set('Origin', APP).type('form').send({ decision: 'deny' });
    expect(corsHeaders(form.headers)).toEqual([]);
    for (const path of ['/oauth/authorize', '/pay/cs_123', '/docs']) {
      const preflight = await api.http.options(path).set('Origin', APP).set('Access-Control-Request-Method', 'POST');
      expect(corsHeaders(preflight.headers)).toEqual([]);
      expect(preflight.status).not.toBe(204);
    }
    const docs = await api.http.get('/docs').set('Origin', APP).expect(200);
    expect(corsHeaders(docs.headers)).toEqual([]);
  });
});

describe('CORS_ALLOWED_ORIGINS', () => {
  const env = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x' };

  it('is exact origins; anything else fails at start-up', () => {
    expect(loadConfig({ ...env, CORS_ALLOWED_ORIGINS: `${APP},${DEV}` }).http.cors.allowedOrigins).toEqual([APP, DEV]);
    for (const bad of [`${APP}/`, `${APP}/cb`, '*', 'app.example', 'ftp://app.example', 'https://APP.example', 'https://app.example:443']) {
      expect(() => loadConfig({ ...env, CORS_ALLOWED_ORIGINS: bad })).toThrow(/CORS_ALLOWED_ORIGINS/);
    }
  });

  it('defaults to none, except any loopback origin in development', () => {
    expect(loadConfig({ ...env, NODE_ENV: 'test' }).http.cors).toEqual({ allowedOrigins: [], allowLoopback: false });
    expect(loadConfig({ ...env, NODE_ENV: 'development' }).http.cors).toEqual({ allowedOrigins: [], allowLoopback: true });
    expect(loadConfig({ ...env, NODE_ENV: 'development', CORS_ALLOWED_ORIGINS: '' }).http.cors.allowLoopback).toBe(false);
  });
});

describe('without CORS_ALLOWED_ORIGINS (tests and production)', () => {
  it('sends no CORS header at all, and a preflight is the plain OPTIONS answer', async () => {
    const closed = await startTestApi({ database: api.database });
    try {
      const get = await closed.http.get('/healthz').set('Origin', APP).expect(200);
      expect(corsHeaders(get.headers)).toEqual([]);
      expect(get.headers.vary ?? '').not.toMatch(/Origin/);
      const preflight = await closed.http
        .options('/user/account')
        .set('Origin', APP)
        .set('Access-Control-Request-Method', 'GET')
        .expect(200);
      expect(corsHeaders(preflight.headers)).toEqual([]);
    } finally {
      await closed.close();
    }
  });
});

describe('in development, unset (npm start)', () => {
  it('allows any loopback origin over http, and nothing else', async () => {
    const dev = await startTestApi({ database: api.database, env: { NODE_ENV: 'development' } });
    try {
      for (const origin of ['http://localhost:5173', 'http://127.0.0.1:8080', 'http://[::1]:3001', 'http://localhost']) {
        const res = await dev.http.get('/healthz').set('Origin', origin).expect(200);
        expect(res.headers['access-control-allow-origin']).toBe(origin);
      }
      for (const origin of ['https://localhost:5173', 'http://localhost.evil.example', 'http://127.0.0.2:80', APP]) {
        const res = await dev.http.get('/healthz').set('Origin', origin).expect(200);
        expect(corsHeaders(res.headers)).toEqual([]);
      }
    } finally {
      await dev.close();
    }
  });
});
