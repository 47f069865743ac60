import { DataSource } from 'typeorm';
import { PersonalAccessToken } from '../db/entities';
import { newId } from '../ids';
import { conflict, invalid, notFound } from './errors';
import { uniqueViolation } from './db-errors';
import { hashSecret, newSecret } from './auth/secrets';

export const MAX_ACTIVE_TOKENS = 5;
const MIN_EXPIRY_MS = 24 * 60 * 60 * 1000;
export const EXPIRY_RULE = '"expires" must be at least 24 hours in the future';

/** The spec's rule for a token's optional expiry; also applied by the route's validation. */
export const expiresTooSoon = (expires: Date, now = new Date()) => expires.getTime() - now.getTime() < MIN_EXPIRY_MS;

export interface PatView {
  name: string;
  createdAt: Date;
  expires: Date | null;
  lastUsed: Date | null;
}

const view = (t: PersonalAccessToken): PatView => ({
  name: t.name,
  createdAt: t.createdAt,
  expires: t.expiresAt,
  lastUsed: t.lastUsedAt,
});

/**
 * Personal access tokens: user-scoped credentials for automation, sent as
 * `Authorization: ApiKey <token>`. Stored only as SHA-256; the token is shown once.
 */
export class PersonalAccessTokens {
  constructor(private readonly db: DataSource) {}

  async list(userId: string): Promise<PatView[]> {
    const tokens = await this.db.getRepository(PersonalAccessToken).find({ where: { userId }, order: { createdAt: 'ASC' } });
    return tokens.map(view);
  }

  async create(userId: string, name: string, expires: Date | undefined, now = new Date()): Promise<PatView & { token: string }> {
    if (expires && expiresTooSoon(expires, now)) {
      throw invalid('validation-failed', 'The request is invalid; see `errors` for each field.', [
        { in: 'body', field: 'expires', message: EXPIRY_RULE },
      ]);
    }
    const token = newSecret('mts_pat_');
    return this.db.transaction(async (tx) => {
      // Serialise concurrent creations for one user so the limit of 5 cannot be overshot.
      await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
      const [{ active }] = await tx.query(
        `SELECT count(*)::int AS active FROM personal_access_tokens
          WHERE user_id = $1 AND (expires_at IS NULL OR expires_at > now())`,
        [userId],
      );
      // A taken name is named before the limit: it is the mistake in this very request.
      const [taken] = await tx.query(`SELECT 1 FROM personal_access_tokens WHERE user_id = $1 AND name = $2`, [userId, name]);
      if (taken) throw nameTaken(name);
      if (active >= MAX_ACTIVE_TOKENS) {
        throw conflict('pat-limit-reached', `A user may hold at most ${MAX_ACTIVE_TOKENS} active personal access tokens.`);
      }
      const row = tx.getRepository(PersonalAccessToken).create({
        id: newId(),
        userId,
        name,
        tokenHash: hashSecret(token),
        expiresAt: expires ?? null,
      });
      try {
        await tx.getRepository(PersonalAccessToken).insert(row);
      } catch (err) {
        if (uniqueViolation(err) === 'personal_access_tokens_user_name_key') throw nameTaken(name);
        throw err;
      }
      const saved = await tx.getRepository(PersonalAccessToken).findOneByOrFail({ id: row.id });
      return { ...view(saved), token };
    });
  }

  /** Deletion is by name and immediate: the next request with that token is refused. */
  async deleteByName(userId: string, name: string): Promise<void> {
    const result = await this.db.getRepository(PersonalAccessToken).delete({ userId, name });
    if (!result.affected) throw notFound('Personal access token');
  }
}

const nameTaken = (name: string) => conflict('pat-name-taken', `You already have a personal access token named "${name}".`);
