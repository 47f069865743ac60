import { DataSource } from 'typeorm';
import { prepared, queryPrepared } from '../../db/prepared';
import { UUID_PATTERN } from '../../ids';
import { AccessTokens } from './access-tokens';
import type { UserActivity } from '../users/activity';
import type { OAuthApps } from './oauth-apps';
import { hashSecret } from './secrets';

export type CredentialKind = 'bearer' | 'apikey';

/**
 * How the caller authenticated: `bearer` (a first-party access token), `apikey` (a personal
 * access token) or `app` (an access token issued to a third-party application, `clientId`).
 */
export type Principal =
  { userId: string; via: CredentialKind; sessionId?: string | null } | { userId: string; via: 'app'; clientId: string };

/** How often a PAT's `last_used_at` is refreshed; avoids a write on every request. */
const LAST_USED_RESOLUTION = "interval '1 minute'";

// Run on every authenticated request, hence prepared (see `PreparedStatement`).
const USER_EXISTS = prepared('user-exists', `SELECT 1 FROM users WHERE id = $1`);
const USE_PAT = prepared(
  'use-personal-access-token',
  `WITH hit AS (
     SELECT id, user_id, last_used_at FROM personal_access_tokens
      WHERE token_hash = $1 AND (expires_at IS NULL OR expires_at > now())
   ), touch AS (
     UPDATE personal_access_tokens p SET last_used_at = now()
       FROM hit WHERE p.id = hit.id
        AND (hit.last_used_at IS NULL OR hit.last_used_at < now() - ${LAST_USED_RESOLUTION})
   )
   SELECT user_id FROM hit`,
);

/** Resolves an `Authorization` header value to the user it authenticates, or null. */
export class Authenticator {
  constructor(
    private readonly db: DataSource,
    private readonly accessTokens: AccessTokens,
    private readonly apps: OAuthApps,
    private readonly activity: UserActivity,
  ) {}

  /** Also records the user as active (for the conversation e-mails' "inactive recipient"). */
  async authenticate(kind: CredentialKind, credential: string): Promise<Principal | null> {
    const principal = await this.resolve(kind, credential);
    if (principal) await this.activity.touch(principal.userId);
    return principal;
  }

  private async resolve(kind: CredentialKind, credential: string): Promise<Principal | null> {
    if (kind === 'bearer') {
      const subject = await this.accessTokens.verify(credential);
      // A signed token outlives nothing: its user must still exist (one primary-key probe).
      if (!subject || !(await this.userExists(subject.userId))) return null;
      if (!subject.clientId) return { userId: subject.userId, via: 'bearer', sessionId: subject.sessionId ?? null };
      // Honoured only while the user keeps the application linked, the operator keeps it enabled
      // and the token is not revoked: each takes effect on the next request, not at token expiry.
      const honoured = await this.apps.isHonoured(subject.userId, subject.clientId, subject.jti, subject.sessionId);
      return honoured ? { userId: subject.userId, via: 'app', clientId: subject.clientId } : null;
    }
    return this.authenticatePat(credential);
  }

  private async userExists(userId: string): Promise<boolean> {
    if (!UUID_PATTERN.test(userId)) return false;
    return (await queryPrepared(this.db, USER_EXISTS, [userId])).length > 0;
  }

  /**
   * One statement both checks the token (unexpired, not deleted) and stamps its last use; a
   * deleted token has no row, so revocation takes effect on the very next request.
   */
  private async authenticatePat(token: string): Promise<Principal | null> {
    const [row] = await queryPrepared<{ user_id: string }>(this.db, USE_PAT, [hashSecret(token)]);
    return row ? { userId: row.user_id, via: 'apikey' } : null;
  }
}
