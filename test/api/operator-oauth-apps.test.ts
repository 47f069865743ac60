import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { registerOperator, registerUser, startTestApi, testEnv, type TestApi, type TestUser } from '../support/api';
import { ROOT } from '../support/env';
import { authorizeCode, exchangeCode, pkce } from '../support/oauth';

// Third-party applications registered and managed by an operator over HTTP, then used by a
// third party through the real code flow.
let api: TestApi;
let operator: TestUser;
beforeAll(async () => {
  api = await startTestApi();
  operator = await registerOperator(api);
});
afterAll(() => api.close());

const REDIRECT = 'https://deckbuilder.example/callback';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

interface Registered {
  id: string;
  clientSecret: string | null;
}

async function register(body: Record<string, unknown> = {}): Promise<Registered & Record<string, unknown>> {
  const res = await api.http
    .post('/operator/oauth-apps')
    .set(operator.bearer)
    .send({ name: 'Deck Builder', redirectUris: [REDIRECT], ...body })
    .expect(201);
  expect(res.headers['cache-control']).toBe('no-store');
  return res.body;
}

/** The third party links the application for the user: code flow with PKCE and the client secret. */
async function link(user: TestUser, clientId: string, clientSecret: string | null) {
  const { verifier, challenge } = pkce();
  const code = await authorizeCode(api, user, clientId, REDIRECT, challenge);
  const res = await exchangeCode(api, { code, verifier, redirectUri: REDIRECT, clientId, clientSecret }).expect(200);
  return res.body as { access_token: string; refresh_token: string };
}

const audit = async (appId: string) => {
  const page = (await api.http.get(`/operator/audit-log?subjectType=oauth-app&subjectId=${appId}`).set(operator.bearer).expect(200)).body;
  expect(page).toMatchObject({ total: page.items.length, page: 1, size: 20 });
  return page.items as Array<Record<string, unknown>>;
};

describe('operator access', () => {
  it('refuses callers without the role (403) and without credentials (401)', async () => {
    const user = await registerUser(api, 'notop');
    const app = await register();
    const calls = [
      () => api.http.post('/operator/oauth-apps').send({ name: 'x', redirectUris: [REDIRECT] }),
      () => api.http.get('/operator/oauth-apps'),
      () => api.http.get(`/operator/oauth-apps/${app.id}`),
      () => api.http.post(`/operator/oauth-apps/${app.id}/disable`).send({ reason: 'x' }),
      () => api.http.post(`/operator/oauth-apps/${app.id}/enable`).send({ reason: 'x' }),
      () => api.http.post(`/operator/oauth-apps/${app.id}/secret`).send({ reason: 'x' }),
    ];
    for (const call of calls) {
      const refused = await call().set(user.bearer).expect(403);
      expect(refused.body.type).toBe('/problems/operator-required');
      await call().expect(401);
    }
    expect((await api.http.get(`/operator/oauth-apps/${app.id}`).set(operator.bearer).expect(200)).body.disabledAt).toBeNull();
  });
});

describe('registering an application', () => {
  it('answers the client secret once; a third party completes a code exchange with it', async () => {
    const app = await register({ name: 'Deck <Builder>', redirectUris: [REDIRECT, 'http://127.0.0.1:8080/cb'], reason: 'Partner request' });
    expect(app).toEqual({
      id: expect.stringMatching(/^mts_app_/),
      name: 'Deck <Builder>',
      redirectUris: [REDIRECT, 'http://127.0.0.1:8080/cb'],
      public: false,
      createdAt: expect.any(String),
      disabledAt: null,
      linkedUsers: 0,
      clientSecret: expect.stringMatching(/^mts_cs_/),
    });
    // Only the hash is stored.
    const [row] = await api.database.db.query(`SELECT secret_hash FROM oauth_clients WHERE id = $1`, [app.id]);
    expect(row.secret_hash).toBe(sha256(app.clientSecret!));

    const user = await registerUser(api, 'thirdparty');
    const tokens = await link(user, app.id, app.clientSecret);
    await api.http
      .get('/basket')
      .set({ Authorization: `Bearer ${tokens.access_token}` })
      .expect(200);
    expect((await api.http.get(`/operator/oauth-apps/${app.id}`).set(operator.bearer).expect(200)).body.linkedUsers).toBe(1);
  });

  it('a public application has no secret, links with PKCE alone, and has no secret to rotate (409)', async () => {
    const app = await register({ name: 'Browser Deck', public: true });
    expect(app).toMatchObject({ public: true, clientSecret: null });
    const tokens = await link(await registerUser(api, 'pubuser'), app.id, null);
    await api.http
      .get('/basket')
      .set({ Authorization: `Bearer ${tokens.access_token}` })
      .expect(200);
    const rotate = await api.http.post(`/operator/oauth-apps/${app.id}/secret`).set(operator.bearer).send({ reason: 'x' }).expect(409);
    expect(rotate.body.type).toBe('/problems/oauth-app-public');
    expect((await audit(app.id)).map((e) => e.action)).toEqual(['oauth-app.register']);
  });

  it('refuses redirect URIs OAuth cannot compare safely, with the rule the CLI applies', async () => {
    const refused = async (redirectUris: unknown) =>
      (await api.http.post('/operator/oauth-apps').set(operator.bearer).send({ name: 'x', redirectUris }).expect(400)).body.errors;
    expect(await refused(['http://app.example/cb'])).toEqual([
      expect.objectContaining({ field: 'redirectUris.0', message: expect.stringContaining('https') }),
    ]);
    expect(await refused([REDIRECT, 'https://app.example/cb#frag'])).toEqual([
      expect.objectContaining({ field: 'redirectUris.1', message: expect.stringContaining('fragment') }),
    ]);
    expect(await refused(['/relative'])).toEqual([expect.objectContaining({ message: expect.stringContaining('absolute') })]);
    // Narrower than the URL parser, as published: an https address whose last label is a number.
    expect(await refused(['https://10.0.0.1/cb'])).toEqual([expect.objectContaining({ message: expect.stringContaining('shape') })]);
    await refused([]);
    await refused([REDIRECT, REDIRECT]);
    const local = await register({ redirectUris: ['http://localhost:3000/cb'] });
    expect(local.redirectUris).toEqual(['http://localhost:3000/cb']);
  });

  it('is never replayed from the idempotency store: the answer holds a secret', async () => {
    const send = () =>
      api.http
        .post('/operator/oauth-apps')
        .set(operator.bearer)
        .set('Idempotency-Key', 'register-once')
        .send({ name: 'Twice', redirectUris: [REDIRECT] })
        .expect(201);
    const first = await send();
    const second = await send();
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.body.id).not.toBe(first.body.id);
    const stored = await api.database.db.query(`SELECT 1 FROM idempotency_keys WHERE key = 'register-once'`);
    expect(stored).toEqual([]);
  });
});

describe('managing an application', () => {
  it('rotating the secret: the old one fails at once (invalid_client), the new one works, links stay', async () => {
    const app = await register();
    const user = await registerUser(api, 'rotuser');
    const before = await link(user, app.id, app.clientSecret);

    const rotated = await api.http
      .post(`/operator/oauth-apps/${app.id}/secret`)
      .set(operator.bearer)
      .send({ reason: 'Secret leaked in a public repository' })
      .expect(200);
    expect(rotated.headers['cache-control']).toBe('no-store');
    expect(rotated.body).toMatchObject({ id: app.id, public: false, clientSecret: expect.stringMatching(/^mts_cs_/) });
    const newSecret: string = rotated.body.clientSecret;
    expect(newSecret).not.toBe(app.clientSecret);

    const { verifier, challenge } = pkce();
    const code = await authorizeCode(api, user, app.id, REDIRECT, challenge);
    const old = await exchangeCode(api, { code, verifier, redirectUri: REDIRECT, clientId: app.id, clientSecret: app.clientSecret }).expect(
      401,
    );
    expect(old.body.error).toBe('invalid_client');
    // A refused client authentication does not spend the code: the new secret redeems it.
    await exchangeCode(api, { code, verifier, redirectUri: REDIRECT, clientId: app.id, clientSecret: newSecret }).expect(200);

    // Tokens issued before stay; refreshing needs the new secret.
    await api.http
      .get('/basket')
      .set({ Authorization: `Bearer ${before.access_token}` })
      .expect(200);
    const refresh = (secret: string) =>
      api.http
        .post('/oauth/token')
        .type('form')
        .send({ grant_type: 'refresh_token', refresh_token: before.refresh_token, client_id: app.id, client_secret: secret });
    expect((await refresh(app.clientSecret!).expect(401)).body.error).toBe('invalid_client');

    await api.http.post(`/operator/oauth-apps/${app.id}/secret`).set(operator.bearer).send({}).expect(400);
    await api.http.post('/operator/oauth-apps/mts_app_nope/secret').set(operator.bearer).send({ reason: 'x' }).expect(404);
  });

  it("disabling stops the application's tokens, codes and client authentication at once; enabling restores the links", async () => {
    const app = await register();
    const user = await registerUser(api, 'disuser');
    const tokens = await link(user, app.id, app.clientSecret);
    const asApp = { Authorization: `Bearer ${tokens.access_token}` };

    const disabled = await api.http
      .post(`/operator/oauth-apps/${app.id}/disable`)
      .set(operator.bearer)
      .send({ reason: 'Scraping listings' })
      .expect(200);
    expect(disabled.body).toMatchObject({ id: app.id, disabledAt: expect.any(String), linkedUsers: 1 });
    expect(disabled.body).not.toHaveProperty('clientSecret');
    await api.http.get('/basket').set(asApp).expect(401);
    await api.http
      .get('/oauth/authorize')
      .query({
        response_type: 'code',
        client_id: app.id,
        redirect_uri: REDIRECT,
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      })
      .expect(400);
    const refresh = await api.http
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: app.id, client_secret: app.clientSecret })
      .expect(401);
    expect(refresh.body.error).toBe('invalid_client');
    const again = await api.http.post(`/operator/oauth-apps/${app.id}/disable`).set(operator.bearer).send({ reason: 'x' }).expect(409);
    expect(again.body.type).toBe('/problems/oauth-app-disabled');

    const enabled = await api.http
      .post(`/operator/oauth-apps/${app.id}/enable`)
      .set(operator.bearer)
      .send({ reason: 'Agreed to stop' })
      .expect(200);
    expect(enabled.body.disabledAt).toBeNull();
    await api.http.get('/basket').set(asApp).expect(200);
    const notDisabled = await api.http.post(`/operator/oauth-apps/${app.id}/enable`).set(operator.bearer).send({ reason: 'x' }).expect(409);
    expect(notDisabled.body.type).toBe('/problems/oauth-app-enabled');
    await api.http.post(`/operator/oauth-apps/${app.id}/disable`).set(operator.bearer).send({}).expect(400);
    await api.http.post('/operator/oauth-apps/mts_app_nope/disable').set(operator.bearer).send({ reason: 'x' }).expect(404);
  });

  it('lists newest first and shows one application, never a secret or its hash; every write is audited without it', async () => {
    const first = await register({ name: 'First' });
    const second = await register({ name: 'Second', reason: 'Partner onboarding' });
    await api.http.post(`/operator/oauth-apps/${second.id}/disable`).set(operator.bearer).send({ reason: 'Paused' }).expect(200);
    await api.http.post(`/operator/oauth-apps/${second.id}/enable`).set(operator.bearer).send({ reason: 'Resumed' }).expect(200);
    const rotated = await api.http
      .post(`/operator/oauth-apps/${second.id}/secret`)
      .set(operator.bearer)
      .send({ reason: 'Yearly rotation' })
      .expect(200);
    const secrets = [first.clientSecret!, second.clientSecret!, rotated.body.clientSecret as string];
    const [{ secret_hash: hash }] = await api.database.db.query(`SELECT secret_hash FROM oauth_clients WHERE id = $1`, [second.id]);
    const leaks = (body: unknown) => {
      const text = JSON.stringify(body);
      for (const s of [...secrets, ...secrets.map(sha256), hash]) expect(text).not.toContain(s);
      expect(text).not.toMatch(/mts_cs_|"(clientSecret|secretHash|secret_hash)"/);
    };

    const list = (await api.http.get('/operator/oauth-apps?size=50').set(operator.bearer).expect(200)).body;
    expect(list.items.slice(0, 2).map((a: { id: string }) => a.id)).toEqual([second.id, first.id]);
    expect(list).toMatchObject({ total: list.items.length, page: 1, size: 50 });
    leaks(list);
    const page2 = (await api.http.get('/operator/oauth-apps?size=1&page=2').set(operator.bearer).expect(200)).body;
    expect(page2).toMatchObject({ total: list.total, page: 2, size: 1 });
    expect(page2.items.map((a: { id: string }) => a.id)).toEqual([first.id]);
    const one = (await api.http.get(`/operator/oauth-apps/${second.id}`).set(operator.bearer).expect(200)).body;
    expect(one).toMatchObject({ id: second.id, name: 'Second', public: false, disabledAt: null });
    leaks(one);
    await api.http.get('/operator/oauth-apps/mts_app_nope').set(operator.bearer).expect(404);

    const entries = await audit(second.id);
    expect(entries).toEqual([
      expect.objectContaining({
        operatorId: operator.id,
        action: 'oauth-app.rotate-secret',
        subjectType: 'oauth-app',
        reason: 'Yearly rotation',
      }),
      expect.objectContaining({ operatorId: operator.id, action: 'oauth-app.enable', subjectId: second.id, reason: 'Resumed' }),
      expect.objectContaining({ operatorId: operator.id, action: 'oauth-app.disable', subjectId: second.id, reason: 'Paused' }),
      expect.objectContaining({
        operatorId: operator.id,
        action: 'oauth-app.register',
        subjectId: second.id,
        reason: 'Partner onboarding',
        detail: { name: 'Second', redirectUris: [REDIRECT], confidential: true },
      }),
    ]);
    leaks(entries);
    const rows = await api.database.db.query(`SELECT * FROM operator_audit_log WHERE subject_id = ANY($1)`, [[first.id, second.id]]);
    expect(rows).toHaveLength(5);
    leaks(rows);
  });

  it('a refused change writes no audit entry (the change and its entry share one transaction)', async () => {
    const app = await register({ public: true });
    await api.http.post(`/operator/oauth-apps/${app.id}/enable`).set(operator.bearer).send({ reason: 'x' }).expect(409);
    await api.http.post(`/operator/oauth-apps/${app.id}/secret`).set(operator.bearer).send({ reason: 'x' }).expect(409);
    expect((await audit(app.id)).map((e) => e.action)).toEqual(['oauth-app.register']);
  });
});

describe('the CLI (bootstrapping) shares the implementation', () => {
  it('rotate-secret prints a new secret that works at once, and lists the application', async () => {
    const app = await register();
    // Run without blocking this process: a synchronous run stalls the API's event loop for the
    // CLI's whole start-up, longer than the keep-alive of the client's pooled connections on a
    // loaded machine, and the next request then meets a connection the server has dropped.
    const cli = async (...args: string[]) =>
      (
        await promisify(execFile)(process.execPath, ['-r', 'ts-node/register', path.join(ROOT, 'scripts/oauth-apps.ts'), ...args], {
          cwd: ROOT,
          env: { ...process.env, ...testEnv(api.database.url), TS_NODE_TRANSPILE_ONLY: 'true' },
          encoding: 'utf8',
        })
      ).stdout;
    const out = await cli('rotate-secret', app.id);
    const secret = /client_secret: (\S+)/.exec(out)![1]!;
    const { verifier, challenge } = pkce();
    const user = await registerUser(api, 'cliuser');
    const code = await authorizeCode(api, user, app.id, REDIRECT, challenge);
    await exchangeCode(api, { code, verifier, redirectUri: REDIRECT, clientId: app.id, clientSecret: app.clientSecret }).expect(401);
    await exchangeCode(api, { code, verifier, redirectUri: REDIRECT, clientId: app.id, clientSecret: secret }).expect(200);
    expect(await cli('list')).toContain(`${app.id}  Deck Builder  confidential  enabled  1 linked`);
  }, 60_000);
});
