import * as oauth from 'oauth4webapi';
import { OAuthApps } from '../../src/services/auth/oauth-apps';
import { registerUser, startTestApi, type TestApi, type TestUser } from '../support/api';

/**
 * The authorization server driven by a standard client library (panva's oauth4webapi), as an
 * integrator would: discovery, code flow with PKCE, refresh, errors, revocation, introspection.
 */
let api: TestApi;
let as: oauth.AuthorizationServer;
let registered: { client: { id: string }; clientSecret: string | null };
let client: oauth.Client;
let clientAuth: oauth.ClientAuth;
const REDIRECT = 'https://deckbuilder.example/callback';
const insecure = { [oauth.allowInsecureRequests]: true };

beforeAll(async () => {
  api = await startTestApi();
  registered = await new OAuthApps(api.database.db).register({ name: 'Deck Builder', redirectUris: [REDIRECT], confidential: true });
  client = { client_id: registered.client.id };
  clientAuth = oauth.ClientSecretBasic(registered.clientSecret!);
  const issuer = new URL(api.baseUrl);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
});
afterAll(() => api.close());

/** What the user's browser does: open the authorization URL, sign in, press Allow; returns the redirect. */
async function authorizeInBrowser(user: TestUser, authorizationUrl: URL): Promise<URL> {
  const page = await api.http.get(authorizationUrl.pathname + authorizationUrl.search).expect(200);
  expect(page.text).toContain('Deck Builder');
  const res = await api.http
    .post('/oauth/authorize')
    .type('form')
    .send({ ...Object.fromEntries(authorizationUrl.searchParams), username: user.username, password: user.password, decision: 'allow' })
    .expect(303);
  return new URL(res.headers.location!);
}

async function codeFlow(user: TestUser): Promise<oauth.TokenEndpointResponse> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    response_type: 'code',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const callback = await authorizeInBrowser(user, url);
  // Checks state and, since the metadata says the server sends it, the RFC 9207 `iss`.
  const params = oauth.validateAuthResponse(as, client, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, REDIRECT, verifier, insecure);
  return oauth.processAuthorizationCodeResponse(as, client, response);
}

/** The error a client library reports for a token-endpoint refusal. */
async function rejection(promise: Promise<unknown>): Promise<oauth.ResponseBodyError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(oauth.ResponseBodyError);
  return err as oauth.ResponseBodyError;
}

/** A 401 whose challenge the library parses: the scheme named, and the RFC 6749 body behind it. */
async function challenge(promise: Promise<unknown>): Promise<{ scheme: string; status: number; error: string }> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
  const { cause, status, response } = err as oauth.WWWAuthenticateChallengeError;
  const body = (await response.json()) as { error: string };
  return { scheme: cause[0]!.scheme, status, error: body.error };
}

describe('OAuth with a standard client (oauth4webapi)', () => {
  it('discovers the server from RFC 8414 metadata', () => {
    expect(as).toMatchObject({
      issuer: api.baseUrl,
      authorization_endpoint: `${api.baseUrl}/oauth/authorize`,
      token_endpoint: `${api.baseUrl}/oauth/token`,
      revocation_endpoint: `${api.baseUrl}/oauth/revoke`,
      introspection_endpoint: `${api.baseUrl}/oauth/introspect`,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
    });
  });

  it('links through the code flow with PKCE, and the access token works on the API', async () => {
    const user = await registerUser(api, 'o4w');
    const tokens = await codeFlow(user);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.refresh_token).toMatch(/^mts_rt_/);
    await api.http.get('/basket').set('Authorization', `Bearer ${tokens.access_token}`).expect(200);
  });

  it('refreshes, and a replayed refresh token is an invalid_grant the library recognises', async () => {
    const user = await registerUser(api, 'o4wrefresh');
    const first = await codeFlow(user);
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, first.refresh_token!, insecure),
    );
    expect(refreshed.refresh_token).not.toBe(first.refresh_token);

    const replay = await rejection(
      oauth
        .refreshTokenGrantRequest(as, client, clientAuth, first.refresh_token!, insecure)
        .then((r) => oauth.processRefreshTokenResponse(as, client, r)),
    );
    expect(replay.error).toBe('invalid_grant');
    expect(replay.status).toBe(400);
    expect(replay.error_description).toMatch(/invalid, expired or already used/);
  });

  it('a wrong client secret is an invalid_client with a Basic challenge', async () => {
    const user = await registerUser(api, 'o4wclient');
    const first = await codeFlow(user);
    const response = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic('mts_cs_wrong'),
      first.refresh_token!,
      insecure,
    );
    expect(await challenge(oauth.processRefreshTokenResponse(as, client, response))).toEqual({
      scheme: 'basic',
      status: 401,
      error: 'invalid_client',
    });
  });

  it('introspects its own tokens, and revocation ends them at once (RFC 7662, RFC 7009)', async () => {
    const user = await registerUser(api, 'o4wrevoke');
    const tokens = await codeFlow(user);
    const introspect = async (token: string) =>
      oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, clientAuth, token, insecure));

    const active = await introspect(tokens.access_token);
    expect(active).toMatchObject({ active: true, client_id: client.client_id, sub: user.id, iss: api.baseUrl, token_type: 'Bearer' });
    expect(active.jti).toEqual(expect.any(String));
    expect(await introspect(tokens.refresh_token!)).toMatchObject({ active: true, client_id: client.client_id, sub: user.id });
    // The user's own first-party token is not this application's business.
    expect(await introspect(user.accessToken)).toEqual({ active: false });

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, tokens.access_token, insecure));
    await api.http.get('/basket').set('Authorization', `Bearer ${tokens.access_token}`).expect(401);
    expect(await introspect(tokens.access_token)).toEqual({ active: false });

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, tokens.refresh_token!, insecure));
    expect(await introspect(tokens.refresh_token!)).toEqual({ active: false });
    const refresh = await rejection(
      oauth
        .refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure)
        .then((r) => oauth.processRefreshTokenResponse(as, client, r)),
    );
    expect(refresh.error).toBe('invalid_grant');

    // Revoking something unknown is not an error (RFC 7009 §2.2).
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, 'mts_rt_unknown', insecure));
  });

  it('a public application may revoke but not introspect', async () => {
    const publicApp = await new OAuthApps(api.database.db).register({ name: 'Pocket', redirectUris: [REDIRECT], confidential: false });
    const pub = { client_id: publicApp.client.id };
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, pub, oauth.None(), 'mts_rt_unknown', insecure));
    const refused = await challenge(
      oauth
        .introspectionRequest(as, pub, oauth.None(), 'mts_rt_unknown', insecure)
        .then((r) => oauth.processIntrospectionResponse(as, pub, r)),
    );
    expect(refused).toEqual({ scheme: 'basic', status: 401, error: 'invalid_client' });
  });
});
