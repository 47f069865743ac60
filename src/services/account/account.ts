import type { DataSource } from 'typeorm';
import { verifyPassword, hashPassword } from '../auth/passwords';
import { uniqueViolation } from '../db-errors';
import { conflict, invalid, notFound, unavailable } from '../errors';
import { plainText } from '../cases/plain-text';
import { ImageQueueFull } from '../../integrations/images/processor';
import { loadSharp } from '../../integrations/images/sharp';
import type { Uploads } from '../uploads';

/** Longest public profile text, counted after sanitising. */
export const MAX_PROFILE_LENGTH = 1000;

/** Fixed sizes the service renders profile images at (WebP), whatever was uploaded. */
export const IMAGE_SIZES = { avatar: { width: 256, height: 256 }, cover: { width: 1500, height: 500 } } as const;

export interface AccountView {
  id: string;
  email: string;
  username: string;
  profile: string | null;
  avatar: string | null;
  cover: string | null;
  /** Whether alert notifications are e-mailed as a digest (docs/alerts.md). */
  alertEmails: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface AccountPatch {
  username?: string;
  profile?: string | null;
  avatar?: string | null;
  cover?: string | null;
  password?: { current: string; new: string };
  alertEmails?: boolean;
}

/**
 * The caller's own account: username, public profile text, avatar and cover images, password.
 * What `/profile/{identifier}` shows comes from the same columns.
 */
export class Accounts {
  constructor(
    private readonly db: DataSource,
    private readonly uploads: Uploads,
    private readonly options: { scryptLogN: number },
  ) {}

  async get(userId: string): Promise<AccountView> {
    const [row]: AccountView[] = await this.db.query(
      `SELECT id, email, username, profile, avatar_url AS avatar, cover_url AS cover, alert_emails AS "alertEmails", created_at AS "createdAt", updated_at AS "updatedAt"
         FROM users WHERE id = $1`,
      [userId],
    );
    if (!row) throw notFound('Account');
    return row;
  }

  /**
   * Applies the given changes together. A password change needs the current password and
   * revokes the refresh tokens of every other first-party session (`sessionId` is the caller's).
   */
  async update(userId: string, sessionId: string | null, patch: AccountPatch): Promise<AccountView> {
    const sets: string[] = [];
    const values: unknown[] = [userId];
    const set = (column: string, value: unknown) => {
      values.push(value);
      sets.push(`${column} = $${values.length}`);
    };
    if (patch.username !== undefined) set('username', patch.username);
    if (patch.alertEmails !== undefined) set('alert_emails', patch.alertEmails);
    if (patch.profile !== undefined) {
      const text = patch.profile === null ? '' : plainText(patch.profile);
      if (text.length > MAX_PROFILE_LENGTH) {
        throw invalid('validation-failed', 'The request is invalid; see `errors` for each field.', [
          { in: 'body', field: 'profile', message: `"profile" must be at most ${MAX_PROFILE_LENGTH} characters of plain text` },
        ]);
      }
      set('profile', text || null);
    }
    // Images are decoded and re-encoded here: what is served is always a clean WebP of a fixed size.
    for (const kind of ['avatar', 'cover'] as const) {
      const uploadId = patch[kind];
      if (uploadId === undefined) continue;
      set(`${kind}_url`, uploadId === null ? null : this.uploads.imageUrl(await this.resized(userId, uploadId, kind)));
    }
    if (patch.password) {
      const [row]: Array<{ password_hash: string }> = await this.db.query(`SELECT password_hash FROM users WHERE id = $1`, [userId]);
      if (!row || !(await verifyPassword(patch.password.current, row.password_hash))) {
        throw invalid('current-password-incorrect', 'The current password is incorrect.', [
          { in: 'body', field: 'password.current', message: '"password.current" is incorrect' },
        ]);
      }
      set('password_hash', await hashPassword(patch.password.new, this.options.scryptLogN));
    }
    if (!sets.length) return this.get(userId);

    await this.db.transaction(async (tx) => {
      try {
        await tx.query(`UPDATE users SET ${sets.join(', ')}, updated_at = now() WHERE id = $1`, values);
      } catch (err) {
        if (uniqueViolation(err) === 'users_username_key') throw conflict('username-taken', 'That username is already taken.');
        throw err;
      }
      if (patch.password) {
        await tx.query(
          `UPDATE refresh_tokens SET revoked_at = now()
            WHERE user_id = $1 AND client_id IS NULL AND revoked_at IS NULL AND family_id IS DISTINCT FROM $2::uuid`,
          [userId, sessionId],
        );
      }
    });
    return this.get(userId);
  }

  private async resized(userId: string, uploadId: string, kind: keyof typeof IMAGE_SIZES): Promise<string> {
    const source = await this.uploads.ownReadyBytes(userId, uploadId, kind);
    const sharp = await loadSharp();
    let bytes: Buffer;
    try {
      // In turn with every other decode of the process, within the same pixel budget.
      bytes = await this.uploads.images.run(() =>
        sharp(source, { limitInputPixels: this.uploads.images.limits.maxPixels })
          .rotate()
          .resize({ ...IMAGE_SIZES[kind], fit: 'cover', position: 'attention' })
          .webp({ quality: 82 })
          .toBuffer(),
      );
    } catch (err) {
      if (err instanceof ImageQueueFull) throw unavailable('Too many images are being processed; try again shortly.', { cause: err });
      throw invalid('image-undecodable', 'The upload could not be decoded as an image.', [
        { in: 'body', field: kind, message: `"${kind}" is not a decodable image` },
      ]);
    }
    return this.uploads.storeDerived(userId, bytes, 'image/webp');
  }
}
