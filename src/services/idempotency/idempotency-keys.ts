import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { DataSource, EntitySubscriberInterface, TransactionCommitEvent } from 'typeorm';
import { conflict, DomainError } from '../errors';

/** How long a key and its stored answer are kept (Stripe's 24 hours). */
export const KEY_LIFETIME = "interval '24 hours'";
/**
 * A first request still "in flight" after this long is taken to have died with its process; a
 * retry may then claim the key again rather than meet 409 for a day.
 */
const ABANDONED_AFTER = "interval '5 minutes'";

export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  contentType: string | null;
  body: Buffer | null;
}

export type Claim = { kind: 'claimed' } | { kind: 'replay'; answer: StoredAnswer };

export const requestHash = (parts: unknown): string => createHash('sha256').update(JSON.stringify(parts)).digest('hex');

/** The claim the running request holds, for the transactions it commits (see `CommitMarker`). */
const held = new AsyncLocalStorage<{ userId: string; key: string }>();

/**
 * Marks the held claim from inside each transaction the request commits, just before COMMIT, so
 * the mark and the request's effects are committed together or not at all. A process that dies
 * after its handler's commit but before storing the answer leaves a claim that says "applied":
 * a retry is then refused instead of running the action a second time. A transaction that wrote
 * nothing (no transaction id assigned) does not mark: a read is no effect.
 */
class CommitMarker implements EntitySubscriberInterface {
  beforeTransactionCommit(event: TransactionCommitEvent): Promise<unknown> | void {
    const claim = held.getStore();
    // Most commits are no request's (the worker's, or requests without a key): no statement, no promise.
    if (!claim) return;
    return event.queryRunner.query(
      `UPDATE idempotency_keys SET committed_at = now()
        WHERE user_id = $1 AND key = $2 AND status IS NULL AND committed_at IS NULL AND txid_current_if_assigned() IS NOT NULL`,
      [claim.userId, claim.key],
    );
  }
}

const MARKER = new CommitMarker();

/**
 * Postgres-backed `Idempotency-Key` records (docs/conventions.md, "Idempotent requests"). The
 * first request with a key claims it (a row without an answer); its answer is stored when it
 * succeeds, or the claim is released when it fails, so a retry runs again. While the request
 * runs (`holding`), every transaction it commits marks the claim as applied in that same
 * transaction, so a crash between the commit and storing the answer cannot run it twice.
 */
export class IdempotencyKeys {
  constructor(private readonly db: DataSource) {}

  /** Runs the request that holds the claim; the transactions it commits mark the claim. */
  holding<T>(userId: string, key: string, run: () => Promise<T>): Promise<T> {
    // Registered here rather than at construction: `initialize()` replaces the data source's
    // subscriber list with the configured ones.
    if (!this.db.subscribers.includes(MARKER)) this.db.subscribers.push(MARKER);
    return held.run({ userId, key }, run);
  }

  async claim(userId: string, key: string, hash: string): Promise<Claim> {
    // Expired keys of this user go first (the primary key's prefix finds them), so a key may be
    // reused after 24 hours and the table holds no more than a day of anyone's keys.
    // A claim without an answer is abandoned after a while only if its request committed nothing.
    await this.db.query(
      `DELETE FROM idempotency_keys
        WHERE user_id = $1
          AND (created_at < now() - ${KEY_LIFETIME}
            OR (key = $2 AND status IS NULL AND committed_at IS NULL AND created_at < now() - ${ABANDONED_AFTER}))`,
      [userId, key],
    );
    const claimed: unknown[] = await this.db.query(
      `INSERT INTO idempotency_keys (user_id, key, request_hash) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1`,
      [userId, key, hash],
    );
    if (claimed.length) return { kind: 'claimed' };
    const [row]: Array<{
      request_hash: string;
      status: number | null;
      response_headers: Record<string, string> | null;
      response_type: string | null;
      response_body: Buffer | null;
      lost: boolean;
    }> = await this.db.query(
      `SELECT request_hash, status, response_headers, response_type, response_body,
              committed_at IS NOT NULL AND created_at < now() - ${ABANDONED_AFTER} AS lost
         FROM idempotency_keys WHERE user_id = $1 AND key = $2`,
      [userId, key],
    );
    // Released between the insert and this read: the caller may simply try again.
    if (!row) throw inFlight();
    if (row.request_hash !== hash) {
      throw new DomainError(
        'unprocessable',
        'idempotency-key-reused',
        'This Idempotency-Key was already used with a different request; use a new key for a new request.',
      );
    }
    if (row.status === null && row.lost) {
      throw conflict(
        'idempotency-key-answer-lost',
        'The request with this Idempotency-Key was applied, but the server stopped before storing its answer. ' +
          'It will not be applied again; read the resource to see its outcome.',
      );
    }
    if (row.status === null) throw inFlight();
    return {
      kind: 'replay',
      answer: { status: row.status, headers: row.response_headers ?? {}, contentType: row.response_type, body: row.response_body },
    };
  }

  async complete(userId: string, key: string, answer: StoredAnswer): Promise<void> {
    await this.db.query(
      `UPDATE idempotency_keys SET status = $3, response_headers = $4, response_type = $5, response_body = $6 WHERE user_id = $1 AND key = $2`,
      [userId, key, answer.status, answer.headers, answer.contentType, answer.body],
    );
  }

  /**
   * Gives up the claim of a request that failed, so a retry runs it again: only when nothing it
   * did was committed. A request that committed and then failed (an error after its transaction)
   * keeps its claim, marked applied, so a retry is refused rather than run a second time.
   */
  async release(userId: string, key: string): Promise<void> {
    await this.db.query(`DELETE FROM idempotency_keys WHERE user_id = $1 AND key = $2 AND status IS NULL AND committed_at IS NULL`, [
      userId,
      key,
    ]);
  }
}

const inFlight = () =>
  conflict('idempotency-key-in-use', 'A request with this Idempotency-Key is still being processed; retry after it finishes.');
