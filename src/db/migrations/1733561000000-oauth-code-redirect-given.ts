import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Whether the authorization request named its `redirect_uri` (it may be left out when the
 * application registered exactly one). RFC 6749 §4.1.3: the token request must then name the
 * same URI, so the code has to remember whether it was given. Codes issued before this column
 * (at most 5 minutes old) keep the earlier rule.
 */
export class OAuthCodeRedirectGiven1733561000000 implements MigrationInterface {
  name = 'OAuthCodeRedirectGiven1733561000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE oauth_authorization_codes ADD COLUMN redirect_uri_given boolean NOT NULL DEFAULT false`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE oauth_authorization_codes DROP COLUMN redirect_uri_given`);
  }
}
