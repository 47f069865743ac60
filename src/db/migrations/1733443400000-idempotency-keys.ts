import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Stored answers of requests sent with an `Idempotency-Key` (docs/conventions.md). */
export class IdempotencyKeys1733443400000 implements MigrationInterface {
  name = 'IdempotencyKeys1733443400000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE idempotency_keys (
        -- Keys are scoped per user: two users may send the same key.
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        key text NOT NULL,
        -- SHA-256 of method, path, query and body: the same key with another request is refused.
        request_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        -- Null while the first request is in flight.
        status integer,
        response_headers jsonb,
        response_type text,
        response_body bytea,
        PRIMARY KEY (user_id, key)
      )`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE idempotency_keys`);
  }
}
