import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revoked third-party sessions: a refresh-token family (the access token's `sid`) whose access
 * tokens are all refused, whatever their `jti`. Written when an authorization code is replayed
 * (RFC 6749 §4.1.2: the tokens its first exchange issued are revoked, access tokens included;
 * they are not recorded one by one). A row is kept while a token of the family could still be
 * presented, and pruned as the list is written.
 */
export class OAuthRevokedSessions1733562000000 implements MigrationInterface {
  name = 'OAuthRevokedSessions1733562000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE oauth_revoked_sessions (
        family_id uuid PRIMARY KEY,
        expires_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX oauth_revoked_sessions_expires_at ON oauth_revoked_sessions (expires_at)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE oauth_revoked_sessions`);
  }
}
