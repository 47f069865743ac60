import type { DataSource } from 'typeorm';
import { newId } from '../../ids';
import { markPayoutInTransit, settlePayout } from './payouts';
import { releaseOrderFunds } from './transfers';

/**
 * The money reconciler (docs/money.md "Reconciler"): money that should have settled by now and
 * has not, because the workflow that moves it gave up (every activity stops retrying after
 * about six minutes) or never ran. It is found from the rows, not from Temporal, and finished
 * through the same idempotent services the workflows call, so a reconciler racing a workflow
 * that is still alive moves nothing twice.
 */

/** Money past its due time: a payout not yet answered by the bank, or a release past its date. */
export interface StuckMoney {
  kind: 'payout' | 'release';
  /** The payout id, or the order id of the release. */
  id: string;
  sellerId: string;
  /** The payout's status (CREATED, IN_TRANSIT), or PENDING for a release. */
  status: string;
  amount: number;
  /** When it was due: the payout's expected answer, the release's `availableOn`. */
  dueAt: Date;
}

export interface StuckBounds {
  /** The clock to judge by: the reconciler workflow's time, so a time-skipping test can move it. */
  asOf: Date;
  /** A payout is due this long after it was handed to the bank. */
  payoutTransitSeconds: number;
  /** How far past due money must be before the reconciler steps in. */
  stuckAfterSeconds: number;
}

/** One thing the reconciler did, as operators read it back (`GET /operator/money/stuck`). */
export interface Reconciliation {
  id: string;
  kind: StuckMoney['kind'];
  subjectId: string;
  sellerId: string;
  before: string;
  /** The status it reached (PAID, FAILED, released, held-by-case, …), or null when it failed again. */
  after: string | null;
  error: string | null;
  createdAt: Date;
}

/**
 * Payouts CREATED or IN_TRANSIT whose answer is overdue, and PENDING releases past their date
 * with no case open on the order (a release held by an open case is waiting, not stuck).
 */
export async function findStuckMoney(db: DataSource, b: StuckBounds): Promise<StuckMoney[]> {
  return db.query(
    `SELECT 'payout' AS kind, p.id, p.seller_id AS "sellerId", p.status, p.amount::int AS amount,
            p.updated_at + make_interval(secs => $2) AS "dueAt"
       FROM payouts p
      WHERE p.status IN ('CREATED', 'IN_TRANSIT') AND p.updated_at + make_interval(secs => $2 + $3) < $1
     UNION ALL
     SELECT 'release', t.order_id, t.seller_id, t.status, t.amount::int, t.available_on
       FROM transfers t
      WHERE t.type = 'TRANSFER' AND t.status = 'PENDING' AND t.available_on + make_interval(secs => $3) < $1
        AND NOT EXISTS (SELECT 1 FROM cases c WHERE c.order_id = t.order_id AND c.status <> 'CLOSED')
      ORDER BY "dueAt", id`,
    [b.asOf, b.payoutTransitSeconds, b.stuckAfterSeconds],
  );
}

/**
 * Finishes every stuck payout (CREATED → in transit → the bank's answer) and release, each in
 * its own transaction through the payout and release services, and records what happened in
 * `money_reconciliations`. One failing item does not stop the others; it is recorded with its
 * error and found again next time. Returns what it did.
 */
export async function reconcileStuckMoney(db: DataSource, b: StuckBounds): Promise<Reconciliation[]> {
  const done: Reconciliation[] = [];
  for (const stuck of await findStuckMoney(db, b)) {
    let after: string | null = null;
    let error: string | null = null;
    try {
      if (stuck.kind === 'payout') {
        if (stuck.status === 'CREATED') await markPayoutInTransit(db, stuck.id);
        after = await settlePayout(db, stuck.id);
      } else {
        after = await releaseOrderFunds(db, stuck.id);
      }
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    const [row]: Reconciliation[] = await db.query(
      `INSERT INTO money_reconciliations (id, kind, subject_id, seller_id, before_status, after_status, error)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${RECONCILIATION_COLUMNS}`,
      [newId(), stuck.kind, stuck.id, stuck.sellerId, stuck.status, after, error],
    );
    done.push(row!);
  }
  return done;
}

const RECONCILIATION_COLUMNS = `id, kind, subject_id AS "subjectId", seller_id AS "sellerId", before_status AS "before",
  after_status AS "after", error, created_at AS "createdAt"`;

/** The reconciler's most recent entries, newest first. */
export async function recentReconciliations(db: DataSource, size: number): Promise<Reconciliation[]> {
  return db.query(`SELECT ${RECONCILIATION_COLUMNS} FROM money_reconciliations ORDER BY created_at DESC, id DESC LIMIT $1`, [size]);
}
