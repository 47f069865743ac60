import { DataSource, IsNull } from 'typeorm';
import { RefreshToken, User } from '../../db/entities';
import { newId } from '../../ids';
import { conflict } from '../errors';
import { uniqueViolation } from '../db-errors';
import { AccessTokens } from './access-tokens';
import { invalidGrant, type OAuthApps } from './oauth-apps';
import { decoyHash, hashPassword, verifyPassword } from './passwords';
import { hashSecret, newSecret } from './secrets';
import { throttleSubjects, type SignInThrottle } from './sign-in-throttle';

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

export interface AuthServiceOptions {
  refreshTokenTtlSeconds: number;
  scryptLogN: number;
}

/** Client credentials as presented at the token endpoint (body or HTTP Basic). */
export interface ClientCredentials {
  clientId?: string;
  clientSecret?: string;
}

/**
 * Registration and the token grants: password (first party), authorization_code with PKCE
 * (third-party applications) and the rotating refresh token (both).
 */
export class AuthService {
  private decoy: Promise<string> | undefined;

  constructor(
    private readonly db: DataSource,
    private readonly accessTokens: AccessTokens,
    private readonly apps: OAuthApps,
    private readonly throttle: SignInThrottle,
    private readonly options: AuthServiceOptions,
  ) {}

  async register(input: { email: string; username: string; password: string }): Promise<{ user: User; tokens: TokenPair }> {
    const user = this.db.getRepository(User).create({
      id: newId(),
      email: input.email,
      username: input.username,
      passwordHash: await hashPassword(input.password, this.options.scryptLogN),
    });
    try {
      await this.db.getRepository(User).insert(user);
    } catch (err) {
      const constraint = uniqueViolation(err);
      if (constraint === 'users_email_key') throw conflict('email-taken', 'That e-mail address is already registered.');
      if (constraint === 'users_username_key') throw conflict('username-taken', 'That username is already taken.');
      throw err;
    }
    const saved = await this.db.getRepository(User).findOneByOrFail({ id: user.id });
    return { user: saved, tokens: await this.issueTokens(saved.id, newId(), null) };
  }

  /** `grant_type=password`: `username` may be the username or the e-mail address. */
  async passwordGrant(username: string, password: string): Promise<TokenPair> {
    const userId = await this.checkCredentials(username, password);
    if (!userId) throw invalidGrant('The username or password is incorrect.');
    return this.issueTokens(userId, newId(), null);
  }

  /**
   * The user id for a username (or e-mail) and password, or null. An unknown user costs the same
   * time as a wrong password, so response time does not reveal which accounts exist. Failures
   * count towards the account's sign-in throttle, which may refuse the attempt outright (429).
   *
   * The typed name is compared after one normalisation, done by Postgres: NFKC, then its
   * `lower()` (the same `lower()` the unique indexes on username and e-mail use). The account is
   * resolved first and counted by id, so its username, its e-mail address and every spelling
   * that folds to them share one count.
   */
  async checkCredentials(username: string, password: string): Promise<string | null> {
    const [found]: Array<{ normalised: string; id: string | null; password_hash: string | null }> = await this.db.query(
      `SELECT n.normalised, u.id, u.password_hash
         FROM (SELECT lower(normalize($1::text, NFKC)) AS normalised) n
         LEFT JOIN users u ON lower(u.username) = n.normalised OR lower(u.email) IN (n.normalised, lower($1::text))
        LIMIT 1`,
      [username],
    );
    const user = found?.id ? { id: found.id, passwordHash: found.password_hash! } : null;
    const subject = user ? throttleSubjects.account(user.id) : throttleSubjects.unknownName(found!.normalised);
    await this.throttle.assertOpen(subject);
    const valid = user ? await verifyPassword(password, user.passwordHash) : await this.verifyAgainstDecoy(password);
    if (!user || !valid) {
      await this.throttle.recordFailure(subject);
      return null;
    }
    await this.throttle.recordSuccess(subject);
    return user.id;
  }

  /** Spends a real verification's time on a decoy hash; always false. */
  private async verifyAgainstDecoy(password: string): Promise<false> {
    this.decoy ??= decoyHash(this.options.scryptLogN);
    await verifyPassword(password, await this.decoy);
    return false;
  }

  /** `grant_type=authorization_code` (RFC 6749 §4.1.3 with RFC 7636 PKCE): a third-party application links the user. */
  async authorizationCodeGrant(
    input: { code: string; redirectUri?: string; codeVerifier: string },
    credentials: ClientCredentials,
  ): Promise<TokenPair> {
    const client = await this.apps.authenticateClient(credentials.clientId, credentials.clientSecret);
    const { userId, familyId } = await this.apps.redeemCode({ ...input, client });
    return this.issueTokens(userId, familyId, client.id);
  }

  /**
   * `grant_type=refresh_token` with rotation. Spending a token is one conditional UPDATE, so two
   * concurrent refreshes with the same token cannot both succeed. A token that was already spent
   * signals theft: the whole family is revoked, logging out both the thief and the user.
   * A third-party application's token is refreshed only by that application, authenticated, and
   * only while the user keeps it linked (RFC 6749 §6).
   */
  async refreshGrant(refreshToken: string, credentials: ClientCredentials = {}): Promise<TokenPair> {
    const tokenHash = hashSecret(refreshToken);
    // An application's token is checked before it is spent: someone holding a stolen token but
    // not the application's secret must not be able to burn it (and trip reuse detection).
    const known = await this.db.getRepository(RefreshToken).findOneBy({ tokenHash });
    if (known?.clientId) {
      const client = await this.apps.authenticateClient(credentials.clientId, credentials.clientSecret);
      if (client.id !== known.clientId) throw invalidGrant('The refresh token was issued to another application.');
      if (!(await this.apps.isLinked(known.userId, client.id))) throw invalidGrant('The user has unlinked this application.');
    }
    const spent: Array<{ user_id: string; family_id: string; client_id: string | null }> = (
      await this.db.query(
        `UPDATE refresh_tokens SET used_at = now()
          WHERE token_hash = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > now()
          RETURNING user_id, family_id, client_id`,
        [tokenHash],
      )
    )[0];
    const row = spent[0];
    if (row) return this.issueTokens(row.user_id, row.family_id, row.client_id);

    if (known?.usedAt) {
      await this.db.getRepository(RefreshToken).update({ familyId: known.familyId, revokedAt: IsNull() }, { revokedAt: new Date() });
    }
    throw invalidGrant('The refresh token is invalid, expired or already used.');
  }

  private async issueTokens(userId: string, familyId: string, clientId: string | null): Promise<TokenPair> {
    const refreshToken = newSecret('mts_rt_');
    await this.db.getRepository(RefreshToken).insert({
      id: newId(),
      userId,
      familyId,
      clientId,
      tokenHash: hashSecret(refreshToken),
      expiresAt: new Date(Date.now() + this.options.refreshTokenTtlSeconds * 1000),
    });
    return {
      accessToken: await this.accessTokens.issue({ userId, clientId, sessionId: familyId }),
      refreshToken,
      expiresIn: this.accessTokens.ttlSeconds,
    };
  }
}
