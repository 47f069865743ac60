import { OAuthApps } from '../../src/services/auth/oauth-apps';
import { throttleSubjects } from '../../src/services/auth/sign-in-throttle';
import { registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ env: { SIGN_IN_MAX_FAILURES: '3', SIGN_IN_LOCK_SECONDS: '600' } });
});
afterAll(() => api.close());

const signIn = (username: string, password: string) => api.http.post('/oauth/token').send({ grant_type: 'password', username, password });

async function fail(user: TestUser, times: number) {
  for (let i = 0; i < times; i++) await signIn(user.username, 'wrong password!').expect(400);
}

describe('sign-in throttle (SIGN_IN_MAX_FAILURES=3, SIGN_IN_LOCK_SECONDS=600)', () => {
  it('locks an account name after 3 failures, even for the right password, with Retry-After', async () => {
    const user = await registerUser(api, 'throttled');
    await fail(user, 3);
    const locked = await signIn(user.username, user.password).expect(429);
    expect(locked.body).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('sign-in') });
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(590);
    expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(600);
    // Names are compared lower-cased.
    await signIn(user.username.toUpperCase(), user.password).expect(429);
    // Another account is unaffected.
    const other = await registerUser(api, 'unthrottled');
    await signIn(other.username, other.password).expect(200);
  });

  it('a success clears the count; the lock ends after its time and the count starts again', async () => {
    const user = await registerUser(api, 'recovers');
    await fail(user, 2);
    await signIn(user.username, user.password).expect(200);
    await fail(user, 2);
    await signIn(user.username, user.password).expect(200);

    await fail(user, 3);
    await signIn(user.username, user.password).expect(429);
    // Ten minutes later (moved back in the table rather than waited for).
    await api.database.db.query(
      `UPDATE sign_in_failures SET locked_until = now() - interval '1 second', window_started_at = now() - interval '11 minutes' WHERE subject = $1`,
      [throttleSubjects.account(user.id)],
    );
    await fail(user, 1);
    await signIn(user.username, user.password).expect(200);
  });

  it('unknown names are throttled like real ones, so a 429 does not reveal that an account exists', async () => {
    for (let i = 0; i < 3; i++) await signIn('nobody-here', 'whatever-password').expect(400);
    await signIn('nobody-here', 'whatever-password').expect(429);
  });

  it('the authorization page is throttled by the same count', async () => {
    const user = await registerUser(api, 'pagethrottle');
    await fail(user, 3);
    const app = await new OAuthApps(api.database.db).register({
      name: 'Throttle test',
      redirectUris: ['https://t.example/cb'],
      confidential: false,
    });
    const res = await api.http
      .post('/oauth/authorize')
      .type('form')
      .send({
        response_type: 'code',
        client_id: app.client.id,
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'S256',
        username: user.username,
        password: user.password,
        decision: 'allow',
      })
      .expect(429);
    expect(res.headers['retry-after']).toBeDefined();
    expect(res.text).toContain('Too many failed sign-ins');
    expect(res.headers.location).toBeUndefined();
  });
});
