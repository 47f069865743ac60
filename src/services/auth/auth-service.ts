import { DataSource, IsNull } from 'typeorm';
import { RefreshToken, User } from '../../db/entities';
import { newId } from '../../ids';
import { conflict, DomainError } from '../errors';
import { uniqueViolation } from '../db-errors';
import { AccessTokens } from './access-tokens';
import { decoyHash, hashPassword, verifyPassword } from './passwords';
import { hashSecret, newSecret } from './secrets';

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

export interface AuthServiceOptions {
  refreshTokenTtlSeconds: number;
  scryptLogN: number;
}

/** OAuth 2.0 error (RFC 6749 §5.2): answered as problem+json carrying `error`. */
const invalidGrant = (message: string) =>
  new DomainError('invalid', 'invalid-grant', message, { error: 'invalid_grant', error_description: message });

/** Registration and the first-party token grants (password, rotating refresh token). */
export class AuthService {
  private decoy: Promise<string> | undefined;

  constructor(
    private readonly db: DataSource,
    private readonly accessTokens: AccessTokens,
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
    return { user: saved, tokens: await this.issueTokens(saved.id, newId()) };
  }

  /** `grant_type=password`: `username` may be the username or the e-mail address. */
  async passwordGrant(username: string, password: string): Promise<TokenPair> {
    const user = await this.db
      .getRepository(User)
      .createQueryBuilder('u')
      .where('lower(u.username) = lower(:name) OR lower(u.email) = lower(:name)', { name: username })
      .getOne();
    if (!user) {
      // Same cost as a wrong password, so response time does not reveal which accounts exist.
      this.decoy ??= decoyHash(this.options.scryptLogN);
      await verifyPassword(password, await this.decoy);
      throw invalidGrant('The username or password is incorrect.');
    }
    if (!(await verifyPassword(password, user.passwordHash))) {
      throw invalidGrant('The username or password is incorrect.');
    }
    return this.issueTokens(user.id, newId());
  }

  /**
   * `grant_type=refresh_token` with rotation. Spending a token is one conditional UPDATE, so two
   * concurrent refreshes with the same token cannot both succeed. A token that was already spent
   * signals theft: the whole family is revoked, logging out both the thief and the user.
   */
  async refreshGrant(refreshToken: string): Promise<TokenPair> {
    const tokenHash = hashSecret(refreshToken);
    const spent: Array<{ user_id: string; family_id: string }> = (
      await this.db.query(
        `UPDATE refresh_tokens SET used_at = now()
          WHERE token_hash = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > now()
          RETURNING user_id, family_id`,
        [tokenHash],
      )
    )[0];
    const row = spent[0];
    if (row) return this.issueTokens(row.user_id, row.family_id);

    const known = await this.db.getRepository(RefreshToken).findOneBy({ tokenHash });
    if (known?.usedAt) {
      await this.db
        .getRepository(RefreshToken)
        .update({ familyId: known.familyId, revokedAt: IsNull() }, { revokedAt: new Date() });
    }
    throw invalidGrant('The refresh token is invalid, expired or already used.');
  }

  private async issueTokens(userId: string, familyId: string): Promise<TokenPair> {
    const refreshToken = newSecret('mts_rt_');
    await this.db.getRepository(RefreshToken).insert({
      id: newId(),
      userId,
      familyId,
      tokenHash: hashSecret(refreshToken),
      expiresAt: new Date(Date.now() + this.options.refreshTokenTtlSeconds * 1000),
    });
    return {
      accessToken: await this.accessTokens.issue(userId),
      refreshToken,
      expiresIn: this.accessTokens.ttlSeconds,
    };
  }
}
