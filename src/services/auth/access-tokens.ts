import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';

const ISSUER = 'marketplace';
const AUDIENCE = 'marketplace-api';

/** Short-lived, stateless bearer access tokens (HS256 JWT). Revocation is by expiry. */
export class AccessTokens {
  constructor(
    private readonly key: Uint8Array,
    readonly ttlSeconds: number,
  ) {}

  issue(userId: string): Promise<string> {
    return new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setSubject(userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${this.ttlSeconds}s`)
      .sign(this.key);
  }

  /** The user id the token was issued to, or null for any invalid or expired token. */
  async verify(token: string): Promise<string | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['HS256'],
        typ: 'at+jwt',
      });
      return typeof payload.sub === 'string' ? payload.sub : null;
    } catch (err) {
      if (err instanceof joseErrors.JOSEError) return null;
      throw err;
    }
  }
}
