import type { DataSource, EntityManager } from 'typeorm';
import { newId } from '../../ids';
import { invalid } from '../errors';
import { emitEvents } from '../events/outbox';
import { requestWorkflowStarts } from '../workflow-starts';
import type { WorkflowStart } from '../workflow-starts/start';
import { CURRENCY, lockSellerMoney, postLedger, sellerBalances } from './ledger';
import { recoverRefundLosses } from './recoveries';

export type PayoutStatus = 'CREATED' | 'IN_TRANSIT' | 'PAID' | 'FAILED';

/** The spec's Payout as `GET /seller/payouts` shows it. */
export interface PayoutView {
  id: string;
  amount: number;
  currency: string;
  /** YYYY-MM-DD: when the money is expected in the seller's bank account. */
  arrivalDate: string;
  status: PayoutStatus;
}

export interface PayoutOptions {
  /** Days between a payout's creation and its expected arrival. */
  arrivalDays: number;
  /** How the payout run repeats (ms, aligned to the Unix epoch like a Temporal interval schedule). */
  runIntervalMs: number;
}

/** `payout:{sellerId}:{runDate}`, built by the money module (src/modules/money.ts). */
export type PayoutStart = (sellerId: string, runDate: string, transitSeconds: number) => WorkflowStart;

const PAYOUT_COLUMNS = `id, amount::int AS amount, currency, to_char(arrival_date, 'YYYY-MM-DD') AS "arrivalDate", status`;

/** Active sellers with money available, by id after $1 (null: from the first), at most $2. */
const SELLERS_DUE = `
  SELECT e.seller_id FROM ledger_entries e JOIN seller_accounts a ON a.user_id = e.seller_id AND a.status = 'ACTIVE'
   WHERE e.account = 'seller_available' AND ($1::uuid IS NULL OR e.seller_id > $1)
   GROUP BY e.seller_id HAVING sum(e.amount) > 0 ORDER BY e.seller_id LIMIT $2`;

/** Sellers a payout run pays per page: one page's children are started at once by the run. */
export const PAYOUT_RUN_PAGE = 100;

/**
 * One page of the payout run of `runDate` (the `payout-run` workflow starts them as children):
 * the `payout:{sellerId}:{runDate}` starts of the active sellers with money available, by seller
 * id after `after`, and the seller to continue after (null: this was the last page). A suspended
 * seller's money stays on the platform (docs/sellers-operators.md "Money").
 */
export async function payoutRunPage(
  db: DataSource,
  runDate: string,
  after: string | null,
  options: { transitSeconds: number },
  payoutStart: PayoutStart,
): Promise<{ starts: WorkflowStart[]; next: string | null }> {
  const sellers: Array<{ seller_id: string }> = await db.query(SELLERS_DUE, [after, PAYOUT_RUN_PAGE]);
  return {
    starts: sellers.map((s) => payoutStart(s.seller_id, runDate, options.transitSeconds)),
    next: sellers.length === PAYOUT_RUN_PAGE ? sellers.at(-1)!.seller_id : null,
  };
}

/**
 * The payout run of `runDate` as it was before runs started their payouts as children: in one
 * transaction, requests every payout through the start outbox. Kept only for payout-run workflows
 * that began before that change and replay its history (`patched('payout-run-children')` in
 * workflows/payout.ts); remove with the patch once none can be running.
 */
export async function requestPayoutRun(
  db: DataSource,
  runDate: string,
  options: { transitSeconds: number },
  payoutStart: PayoutStart,
): Promise<number> {
  return db.transaction(async (tx) => {
    const sellers: Array<{ seller_id: string }> = await tx.query(SELLERS_DUE, [null, null]);
    await requestWorkflowStarts(
      tx,
      sellers.map((s) => payoutStart(s.seller_id, runDate, options.transitSeconds)),
    );
    return sellers.length;
  });
}

/**
 * Creates the seller's payout of `runDate` for everything available: the money moves from
 * available to in transit. Idempotent per seller and date; null when nothing is available or
 * the seller is suspended.
 */
export async function createPayout(db: DataSource, sellerId: string, runDate: string, arrivalDays: number): Promise<string | null> {
  return db.transaction(async (tx) => {
    await lockSellerMoney(tx, sellerId);
    const [existing]: Array<{ id: string }> = await tx.query(`SELECT id FROM payouts WHERE seller_id = $1 AND run_date = $2`, [
      sellerId,
      runDate,
    ]);
    if (existing) return existing.id;
    // Suspended since the run was requested: nothing leaves until the seller is reinstated.
    const [active] = await tx.query(`SELECT 1 FROM seller_accounts WHERE user_id = $1 AND status = 'ACTIVE'`, [sellerId]);
    if (!active) return null;
    const { available } = await sellerBalances(tx, sellerId);
    if (available <= 0) return null;
    const id = newId();
    await tx.query(
      `INSERT INTO payouts (id, seller_id, run_date, amount, currency, status, arrival_date)
       VALUES ($1, $2, $3, $4, $5, 'CREATED', $3::date + $6::int)`,
      [id, sellerId, runDate, available, CURRENCY, arrivalDays],
    );
    await postLedger(tx, {
      event: 'PAYOUT_CREATED',
      idempotencyKey: `payout-created:${id}`,
      entries: [
        { account: 'seller_available', amount: -available, sellerId },
        { account: 'payouts_in_transit', amount: available, sellerId },
      ],
    });
    return id;
  });
}

/** CREATED → IN_TRANSIT: handed to the bank. No money moves (it left available at creation). */
export async function markPayoutInTransit(db: DataSource, payoutId: string): Promise<void> {
  await db.query(`UPDATE payouts SET status = 'IN_TRANSIT', updated_at = now() WHERE id = $1 AND status = 'CREATED'`, [payoutId]);
}

/**
 * The bank's answer for a payout in transit (the embedded simulator: a seller's simulated bank
 * account marked to fail refuses it). PAID: the money leaves the platform. FAILED: it returns to
 * the seller's available balance (repaying a refund loss the platform carries for them first). Either way PAYOUT_PAID / PAYOUT_FAILED goes to the webhook
 * outbox in the same transaction. Idempotent: a settled payout answers its status.
 */
export async function settlePayout(db: DataSource, payoutId: string): Promise<PayoutStatus> {
  return db.transaction(async (tx) => {
    const [p]: Array<{ seller_id: string; amount: number; status: PayoutStatus }> = await tx.query(
      `SELECT seller_id, amount::int AS amount, status FROM payouts WHERE id = $1 FOR UPDATE`,
      [payoutId],
    );
    if (!p) throw new Error(`payout ${payoutId} does not exist`);
    if (p.status === 'PAID' || p.status === 'FAILED') return p.status;
    await lockSellerMoney(tx, p.seller_id);
    const [bank]: Array<{ fails: boolean }> = await tx.query(`SELECT fails FROM simulator_bank_accounts WHERE seller_id = $1`, [
      p.seller_id,
    ]);
    const status: PayoutStatus = bank?.fails ? 'FAILED' : 'PAID';
    await tx.query(`UPDATE payouts SET status = $2, failure_reason = $3, updated_at = now() WHERE id = $1`, [
      payoutId,
      status,
      status === 'FAILED' ? 'account_closed' : null,
    ]);
    await postLedger(tx, {
      event: status === 'PAID' ? 'PAYOUT_PAID' : 'PAYOUT_FAILED',
      idempotencyKey: `payout-settled:${payoutId}`,
      entries: [
        { account: 'payouts_in_transit', amount: -p.amount, sellerId: p.seller_id },
        status === 'PAID'
          ? { account: 'payouts', amount: p.amount }
          : { account: 'seller_available', amount: p.amount, sellerId: p.seller_id },
      ],
    });
    // Money back in available repays a refund loss the platform carries for the seller first.
    if (status === 'FAILED') await recoverRefundLosses(tx, p.seller_id, `payout-failed:${payoutId}`);
    await emitEvents(tx, status === 'PAID' ? 'PAYOUT_PAID' : 'PAYOUT_FAILED', [
      { sellerId: p.seller_id, createdAt: new Date().toISOString(), payoutId, amount: p.amount, currency: CURRENCY, status },
    ]);
    return status;
  });
}

/** A seller's payouts, newest first, by cursor (the payout id to continue after); see transfers. */
export async function listSellerPayouts(
  db: DataSource | EntityManager,
  sellerId: string,
  page: { cursor?: string; size: number },
): Promise<{ payouts: PayoutView[]; cursor: string | null }> {
  if (page.cursor) {
    const [known] = await db.query(`SELECT 1 FROM payouts WHERE id = $1 AND seller_id = $2`, [page.cursor, sellerId]);
    if (!known)
      throw invalid('invalid-cursor', 'The cursor is not one this list returned.', [
        { in: 'query', field: 'cursor', message: 'Unknown cursor.' },
      ]);
  }
  const rows: PayoutView[] = await db.query(
    `SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE seller_id = $1 AND ($2::uuid IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [sellerId, page.cursor ?? null, page.size + 1],
  );
  const payouts = rows.slice(0, page.size);
  return { payouts, cursor: rows.length > page.size ? payouts[payouts.length - 1]!.id : null };
}

/** When the next payout run starts: interval schedules fire at whole multiples of the interval since the epoch. */
export function nextPayoutRun(now: Date, intervalMs: number): Date {
  return new Date((Math.floor(now.getTime() / intervalMs) + 1) * intervalMs);
}
