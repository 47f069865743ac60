import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Saved addresses, the record of lookup retrieves, and the account stats version (docs/account.md). */
export class AccountAddresses1733443600000 implements MigrationInterface {
  name = 'AccountAddresses1733443600000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE saved_addresses (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        type text NOT NULL CHECK (type IN ('shipping', 'billing')),
        label text NOT NULL DEFAULT '',
        name text NOT NULL DEFAULT '',
        line1 text NOT NULL CHECK (char_length(line1) >= 1),
        line2 text NOT NULL DEFAULT '',
        city text NOT NULL CHECK (char_length(city) >= 1),
        state text NOT NULL DEFAULT '',
        postal_code text NOT NULL CHECK (char_length(postal_code) >= 1),
        country char(2) NOT NULL,
        lookup_id text,
        is_validated boolean NOT NULL DEFAULT false,
        is_primary boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX saved_addresses_user_idx ON saved_addresses (user_id, created_at)`);
    // At most one primary per user and type: a second concurrent "make primary" fails here
    // rather than leaving two defaults.
    await q.query(`CREATE UNIQUE INDEX saved_addresses_one_primary ON saved_addresses (user_id, type) WHERE is_primary`);

    // What the lookup provider returned to whom: a saved address is "validated" only against
    // this record, never because the client says so.
    await q.query(`
      CREATE TABLE address_lookup_retrieves (
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        lookup_id text NOT NULL,
        address jsonb NOT NULL,
        retrieved_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, lookup_id)
      )`);

    await q.query(`ALTER TABLE users ADD COLUMN account_stats_version bigint NOT NULL DEFAULT 0`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users DROP COLUMN account_stats_version`);
    await q.query(`DROP TABLE address_lookup_retrieves`);
    await q.query(`DROP TABLE saved_addresses`);
  }
}
