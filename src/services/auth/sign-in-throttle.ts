import type { DataSource } from 'typeorm';
import { DomainError } from '../errors';

export interface SignInThrottleOptions {
  maxFailures: number;
  lockSeconds: number;
}

/**
 * Slows password guessing against one account: after `maxFailures` wrong passwords for a subject
 * within `lockSeconds`, sign-in for that subject is refused for `lockSeconds`, right password or
 * not (checking it would turn the lock into an oracle). A success clears the count. Counted in
 * Postgres, so every API replica sees the same count; one upsert per failure keeps concurrent
 * guesses from under-counting.
 *
 * The subject is the account (`throttleSubjects.account`), whichever of its names or spellings
 * was typed; a name that matches no account is counted as itself after the sign-in
 * normalisation (`throttleSubjects.unknownName`), so unknown names lock the same way.
 */
export class SignInThrottle {
  constructor(
    private readonly db: DataSource,
    private readonly options: SignInThrottleOptions,
  ) {}

  /** Throws 429 `too-many-sign-in-attempts` (with `retryAfter` seconds) while the subject is locked. */
  async assertOpen(subject: string): Promise<void> {
    const [row]: Array<{ retry_after: number }> = await this.db.query(
      `SELECT ceil(extract(epoch FROM locked_until - now()))::int AS retry_after
         FROM sign_in_failures WHERE subject = $1 AND locked_until > now()`,
      [subject],
    );
    if (row) {
      throw new DomainError('rate-limited', 'too-many-sign-in-attempts', 'Too many failed sign-ins for this account; try again later.', {
        retryAfter: Math.max(1, row.retry_after),
      });
    }
  }

  async recordFailure(subject: string): Promise<void> {
    await this.db.query(
      `INSERT INTO sign_in_failures AS f (subject, failures, window_started_at) VALUES ($1, 1, now())
       ON CONFLICT (subject) DO UPDATE SET
         failures = CASE WHEN f.window_started_at > now() - make_interval(secs => $3) THEN f.failures + 1 ELSE 1 END,
         window_started_at = CASE WHEN f.window_started_at > now() - make_interval(secs => $3) THEN f.window_started_at ELSE now() END,
         locked_until = CASE
           WHEN f.window_started_at > now() - make_interval(secs => $3) AND f.failures + 1 >= $2 THEN now() + make_interval(secs => $3)
           ELSE f.locked_until END`,
      [subject, this.options.maxFailures, this.options.lockSeconds],
    );
  }

  async recordSuccess(subject: string): Promise<void> {
    await this.db.query(`DELETE FROM sign_in_failures WHERE subject = $1`, [subject]);
  }
}

export const throttleSubjects = {
  account: (userId: string) => `account:${userId}`,
  /** `normalised` is the typed name as the sign-in lookup compares it (NFKC, then lower-case). */
  unknownName: (normalised: string) => `name:${normalised}`,
};
