import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Failed password sign-ins per account name, for the sign-in throttle (docs/auth.md). */
export class SignInThrottle1733356800000 implements MigrationInterface {
  name = 'SignInThrottle1733356800000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sign_in_failures (
        -- The name as typed, lower-cased: unknown names are throttled like real ones.
        subject text PRIMARY KEY,
        failures integer NOT NULL,
        window_started_at timestamptz NOT NULL,
        locked_until timestamptz
      )`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE sign_in_failures`);
  }
}
