import { SignJWT } from 'jose';
import { AccessTokens } from '../../src/services/auth/access-tokens';

const secret = new TextEncoder().encode('unit-secret-unit-secret-unit-secret-0001');
const issuer = 'https://api.example.test';
const tokens = new AccessTokens(secret, 900, issuer);

/** A token as `issue` writes it, with any claim or header changed. */
function forge(claims: Record<string, unknown>, key: Uint8Array = secret, header: Record<string, unknown> = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ jti: 'j-1', iat: now, exp: now + 900, sub: 'user-1', iss: issuer, aud: 'marketplace-api', ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', ...header })
    .sign(key);
}

describe('AccessTokens', () => {
  it('verifies what it issued, with its claims', async () => {
    const token = await tokens.issue({ userId: 'user-1', clientId: 'app-1', sessionId: 'sid-1' });
    await expect(tokens.verify(token)).resolves.toMatchObject({ userId: 'user-1', clientId: 'app-1', sessionId: 'sid-1', issuer });
    // Another instance over the same secret (another API process) accepts it too.
    await expect(new AccessTokens(secret, 900, issuer).verify(token)).resolves.toMatchObject({ userId: 'user-1' });
  });

  it('accepts a token written the way issue writes it (the forging helper is faithful)', async () => {
    await expect(tokens.verify(await forge({}))).resolves.toMatchObject({ userId: 'user-1', jti: 'j-1' });
  });

  it('refuses tokens signed with another secret, altered, expired, for another issuer or of another type', async () => {
    const other = new TextEncoder().encode('other-secret-other-secret-other-secret-01');
    const valid = await tokens.issue({ userId: 'user-1', clientId: null });
    const [header, payload, signature] = valid.split('.');
    const altered = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: 'admin' })).toString(
      'base64url',
    );
    const refused = [
      await forge({}, other),
      `${header}.${altered}.${signature}`,
      await forge({ exp: Math.floor(Date.now() / 1000) - 60 }),
      await forge({ iss: 'https://elsewhere.example' }),
      await forge({}, secret, { typ: 'JWT' }),
      `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${payload}.`,
    ];
    for (const token of refused) await expect(tokens.verify(token)).resolves.toBeNull();
  });
});
