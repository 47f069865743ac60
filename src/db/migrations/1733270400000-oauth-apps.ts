import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Third-party applications: operator-registered OAuth clients, the
 * users who linked them (one grant per user and application), single-use authorization codes,
 * and the application a refresh token family belongs to. See docs/auth.md.
 */
export class OAuthApps1733270400000 implements MigrationInterface {
  name = 'OAuthApps1733270400000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE oauth_clients (
        id text PRIMARY KEY,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
        -- SHA-256 of the client secret; NULL for a public client (PKCE alone).
        secret_hash text,
        redirect_uris text[] NOT NULL CHECK (cardinality(redirect_uris) BETWEEN 1 AND 10),
        created_at timestamptz NOT NULL DEFAULT now(),
        disabled_at timestamptz
      )`);
    await q.query(`
      CREATE TABLE oauth_grants (
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        client_id text NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, client_id)
      )`);
    await q.query(`
      CREATE TABLE oauth_authorization_codes (
        code_hash text PRIMARY KEY,
        client_id text NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        redirect_uri text NOT NULL,
        code_challenge text NOT NULL,
        -- The refresh token family the code's exchange starts; revoked if the code is replayed.
        family_id uuid NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await q.query(`ALTER TABLE refresh_tokens ADD COLUMN client_id text REFERENCES oauth_clients(id) ON DELETE CASCADE`);
    await q.query(`CREATE INDEX refresh_tokens_user_client_idx ON refresh_tokens (user_id, client_id) WHERE client_id IS NOT NULL`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE refresh_tokens DROP COLUMN client_id`);
    await q.query(`DROP TABLE oauth_authorization_codes`);
    await q.query(`DROP TABLE oauth_grants`);
    await q.query(`DROP TABLE oauth_clients`);
  }
}
