import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';

const ISSUER = 'marketplace';
const AUDIENCE = 'marketplace-api';

/** Who an access token speaks for: the user, and the third-party application it was issued to. */
export interface AccessTokenSubject {
  userId: string;
  /** RFC 9068 `client_id`; null for first-party sign-ins. */
  clientId: string | null;
  /** The refresh-token family (sign-in session) it was issued in: `sid`. */
  sessionId?: string | null;
}

/** Short-lived, stateless bearer access tokens (HS256 JWT). Revocation is by expiry. */
export class AccessTokens {
  constructor(
    private readonly key: Uint8Array,
    readonly ttlSeconds: number,
  ) {}

  issue({ userId, clientId, sessionId }: AccessTokenSubject): Promise<string> {
    return new SignJWT({ ...(clientId ? { client_id: clientId } : {}), ...(sessionId ? { sid: sessionId } : {}) })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setSubject(userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${this.ttlSeconds}s`)
      .sign(this.key);
  }

  /** The token's subject, or null for any invalid or expired token. */
  async verify(token: string): Promise<AccessTokenSubject | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['HS256'],
        typ: 'at+jwt',
        // Tokens are revoked by expiry alone, so one without `exp` would never be revoked.
        requiredClaims: ['exp'],
      });
      if (typeof payload.sub !== 'string') return null;
      return {
        userId: payload.sub,
        clientId: typeof payload.client_id === 'string' ? payload.client_id : null,
        sessionId: typeof payload.sid === 'string' ? payload.sid : null,
      };
    } catch (err) {
      if (err instanceof joseErrors.JOSEError) return null;
      throw err;
    }
  }
}
