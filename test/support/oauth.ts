import { createHash, randomBytes } from 'node:crypto';
import type { TestApi, TestUser } from './api';

/** A PKCE pair (RFC 7636 S256). */
export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The user signs in on the authorization page and allows the application; returns the code it is sent. */
export async function authorizeCode(
  api: TestApi,
  user: TestUser,
  clientId: string,
  redirectUri: string,
  challenge: string,
): Promise<string> {
  const res = await api.http.post('/oauth/authorize').type('form').send({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    username: user.username,
    password: user.password,
    decision: 'allow',
  });
  expect(res.status).toBe(303);
  const code = new URL(res.headers.location!).searchParams.get('code');
  expect(code).toEqual(expect.any(String));
  return code!;
}

/** The application's back end exchanges a code at the token endpoint (the test asserts the status). */
export const exchangeCode = (
  api: TestApi,
  input: { code: string; verifier: string; redirectUri: string; clientId: string; clientSecret?: string | null },
) =>
  api.http
    .post('/oauth/token')
    .type('form')
    .send({
      grant_type: 'authorization_code',
      code: input.code,
      code_verifier: input.verifier,
      redirect_uri: input.redirectUri,
      client_id: input.clientId,
      ...(input.clientSecret ? { client_secret: input.clientSecret } : {}),
    });
