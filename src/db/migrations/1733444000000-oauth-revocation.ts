import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revoked third-party access tokens (RFC 7009), by `jti`. A row is needed only until the token
 * would have expired anyway, so `expires_at` lets revocation prune the list as it writes.
 */
export class OAuthRevocation1733444000000 implements MigrationInterface {
  name = 'OAuthRevocation1733444000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE oauth_revoked_access_tokens (
        jti uuid PRIMARY KEY,
        expires_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX oauth_revoked_access_tokens_expires_at ON oauth_revoked_access_tokens (expires_at)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE oauth_revoked_access_tokens`);
  }
}
