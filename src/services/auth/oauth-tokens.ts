import type { DataSource } from 'typeorm';
import type { AccessTokens } from './access-tokens';
import { invalidClient, type OAuthApps } from './oauth-apps';
import { hashSecret } from './secrets';
import type { ClientCredentials } from './auth-service';

/** RFC 7662 §2.2. Inactive tokens say nothing else. */
export type Introspection =
  | { active: false }
  | {
      active: true;
      client_id: string;
      sub: string;
      exp: number;
      iat?: number;
      iss: string;
      aud?: string;
      jti?: string;
      token_type?: 'Bearer';
    };

export type TokenTypeHint = 'access_token' | 'refresh_token';

/**
 * Revocation (RFC 7009) and introspection (RFC 7662) for registered applications. An
 * application sees and revokes only tokens issued to itself: for any other token both
 * endpoints answer as if it did not exist, so they cannot be used to probe other tokens.
 */
export class OAuthTokens {
  constructor(
    private readonly db: DataSource,
    private readonly accessTokens: AccessTokens,
    private readonly apps: OAuthApps,
  ) {}

  get issuer(): string {
    return this.accessTokens.issuer;
  }

  /**
   * A refresh token is revoked with its whole family (every token descended from the same
   * link), so a copy kept elsewhere dies too; an access token goes on the revocation list
   * until it would have expired. Unknown or foreign tokens are a no-op (RFC 7009 §2.2).
   */
  async revoke(token: string, hint: TokenTypeHint | undefined, credentials: ClientCredentials): Promise<void> {
    const client = await this.apps.authenticateClient(credentials.clientId, credentials.clientSecret);
    // The hint only orders the look-ups (RFC 7009 §2.1); both kinds are always tried.
    const order = hint === 'access_token' ? [this.revokeAccess, this.revokeRefresh] : [this.revokeRefresh, this.revokeAccess];
    for (const attempt of order) if (await attempt.call(this, token, client.id)) return;
  }

  private async revokeRefresh(token: string, clientId: string): Promise<boolean> {
    const [, changed]: [unknown, number] = await this.db.query(
      `UPDATE refresh_tokens SET revoked_at = now()
        WHERE revoked_at IS NULL
          AND family_id = (SELECT family_id FROM refresh_tokens WHERE token_hash = $1 AND client_id = $2)`,
      [hashSecret(token), clientId],
    );
    return changed > 0;
  }

  private async revokeAccess(token: string, clientId: string): Promise<boolean> {
    const claims = await this.accessTokens.verify(token);
    if (!claims || claims.clientId !== clientId) return false;
    await this.db.transaction(async (tx) => {
      await tx.query(`DELETE FROM oauth_revoked_access_tokens WHERE expires_at < now()`);
      await tx.query(
        `INSERT INTO oauth_revoked_access_tokens (jti, expires_at) VALUES ($1, to_timestamp($2)) ON CONFLICT (jti) DO NOTHING`,
        [claims.jti, claims.expiresAt],
      );
    });
    return true;
  }

  /**
   * Only confidential applications may introspect: RFC 7662 §2.1 requires the caller to be
   * authorized, and a public application's `client_id` is no secret.
   */
  async introspect(token: string, hint: TokenTypeHint | undefined, credentials: ClientCredentials): Promise<Introspection> {
    const client = await this.apps.authenticateClient(credentials.clientId, credentials.clientSecret);
    if (!client.confidential) throw invalidClient();
    const order =
      hint === 'refresh_token' ? [this.introspectRefresh, this.introspectAccess] : [this.introspectAccess, this.introspectRefresh];
    for (const attempt of order) {
      const result = await attempt.call(this, token, client.id);
      if (result) return result;
    }
    return { active: false };
  }

  private async introspectAccess(token: string, clientId: string): Promise<Introspection | null> {
    const claims = await this.accessTokens.verify(token);
    if (!claims || claims.clientId !== clientId) return null;
    if (!(await this.apps.isHonoured(claims.userId, clientId, claims.jti, claims.sessionId))) return null;
    return {
      active: true,
      client_id: clientId,
      sub: claims.userId,
      exp: claims.expiresAt,
      iat: claims.issuedAt,
      iss: claims.issuer,
      aud: claims.audience,
      jti: claims.jti,
      token_type: 'Bearer',
    };
  }

  private async introspectRefresh(token: string, clientId: string): Promise<Introspection | null> {
    const rows: Array<{ user_id: string; exp: number; iat: number }> = await this.db.query(
      `SELECT t.user_id, extract(epoch FROM t.expires_at)::bigint AS exp, extract(epoch FROM t.created_at)::bigint AS iat
         FROM refresh_tokens t
         JOIN oauth_grants g ON g.user_id = t.user_id AND g.client_id = t.client_id
         JOIN oauth_clients c ON c.id = t.client_id AND c.disabled_at IS NULL
        WHERE t.token_hash = $1 AND t.client_id = $2 AND t.used_at IS NULL AND t.revoked_at IS NULL AND t.expires_at > now()`,
      [hashSecret(token), clientId],
    );
    const row = rows[0];
    if (!row) return null;
    return { active: true, client_id: clientId, sub: row.user_id, exp: Number(row.exp), iat: Number(row.iat), iss: this.issuer };
  }
}
