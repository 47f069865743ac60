import type { DataSource, EntityManager } from 'typeorm';
import type { FundsRelease } from '../../../workflows/contracts/funds-release';
import { newId } from '../../ids';
import { invalid } from '../errors';
import { requestWorkflowStart, type WorkflowStart } from '../workflow-starts';
import { CURRENCY, lockSellerMoney, orderPending, postLedger } from './ledger';
import { recoverRefundLosses } from './recoveries';

/** A transfer as the seller routes show it (docs/money.md). */
export interface TransferView {
  id: string;
  orderId: string;
  type: 'TRANSFER' | 'REVERSAL' | 'RECOVERY';
  status: 'PENDING' | 'COMPLETED';
  amount: number;
  currency: string;
  availableOn: Date;
  createdAt: Date;
  updatedAt: Date;
}

/** `funds-release:{orderId}` as an order's receipt starts it, built by the money module (src/modules/money.ts). */
export type FundsReleaseStart = (orderId: string, afterSeconds: number, releaseAt: Date) => WorkflowStart;

/** The signal-with-start of `funds-release:{orderId}` that a case closing on the order sends (one per case). */
export type FundsReleaseCaseClosedStart = (orderId: string, afterSeconds: number, releaseAt: Date, caseId: string) => WorkflowStart;

/**
 * A PENDING transfer's amount is what the ledger holds pending for its order now, so a refund
 * during the hold shows at once (the stored amount is what was pending at receipt); a COMPLETED
 * one shows what moved.
 */
const TRANSFER_COLUMNS = `id, order_id AS "orderId", type, status,
  (CASE WHEN status = 'PENDING'
        THEN GREATEST(0, (SELECT COALESCE(sum(e.amount), 0) FROM ledger_entries e WHERE e.order_id = transfers.order_id AND e.account = 'seller_pending'))
        ELSE amount END)::int AS amount,
  currency, available_on AS "availableOn", created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * An order was received: its seller share becomes available once the hold period has passed.
 * Writes the PENDING transfer (what the seller will see arrive, and when) and requests the
 * `funds-release:{orderId}` timer, both in the receipt's transaction. Nothing is scheduled for an
 * order with nothing pending (fully refunded already), and a second receipt schedules nothing.
 */
export async function scheduleFundsRelease(
  tx: EntityManager,
  orderId: string,
  holdSeconds: number,
  fundsRelease: FundsReleaseStart,
): Promise<void> {
  const amount = await orderPending(tx, orderId);
  if (amount <= 0) return;
  const [inserted]: Array<{ available_on: Date }> = await tx.query(
    `INSERT INTO transfers (id, seller_id, order_id, type, status, amount, currency, available_on)
     SELECT $1, seller_id, id, 'TRANSFER', 'PENDING', $2, $3, received_at + make_interval(secs => $4) FROM orders WHERE id = $5
     ON CONFLICT (order_id) WHERE type = 'TRANSFER' DO NOTHING RETURNING available_on`,
    [newId(), amount, CURRENCY, holdSeconds, orderId],
  );
  if (inserted) await requestWorkflowStart(tx, fundsRelease(orderId, holdSeconds, inserted.available_on));
}

/**
 * The hold period of a received order has passed: what its seller still has pending for it
 * (their share, less any refund made meanwhile) moves to available, and the transfer completes;
 * a refund loss the platform carries for the seller is then repaid from it first (a RECOVERY).
 * While a case on the order is open nothing moves: `held-by-case`, and the workflow waits for
 * the case to close. Idempotent: `nothing-pending` when there is no pending transfer (already
 * released, or never scheduled).
 */
export async function releaseOrderFunds(db: DataSource, orderId: string): Promise<FundsRelease> {
  return db.transaction(async (tx) => {
    // The order row first, as a case opening does: a case opened concurrently is either seen
    // here, or opens after the release (and a refund then reverses from available).
    await tx.query(`SELECT 1 FROM orders WHERE id = $1 FOR UPDATE`, [orderId]);
    const [transfer]: Array<{ id: string; seller_id: string }> = await tx.query(
      `SELECT id, seller_id FROM transfers WHERE order_id = $1 AND type = 'TRANSFER' AND status = 'PENDING' FOR UPDATE`,
      [orderId],
    );
    if (!transfer) return 'nothing-pending';
    const open: unknown[] = await tx.query(`SELECT 1 FROM cases WHERE order_id = $1 AND status <> 'CLOSED' LIMIT 1`, [orderId]);
    if (open.length > 0) return 'held-by-case';
    await lockSellerMoney(tx, transfer.seller_id);
    const amount = Math.max(0, await orderPending(tx, orderId));
    await postLedger(tx, {
      event: 'FUNDS_RELEASED',
      idempotencyKey: `release:${orderId}`,
      orderId,
      entries: [
        { account: 'seller_pending', amount: -amount, sellerId: transfer.seller_id, orderId },
        { account: 'seller_available', amount, sellerId: transfer.seller_id, orderId },
      ],
    });
    await tx.query(`UPDATE transfers SET status = 'COMPLETED', amount = $2, updated_at = now() WHERE id = $1`, [transfer.id, amount]);
    await recoverRefundLosses(tx, transfer.seller_id, `release:${orderId}`);
    return 'released';
  });
}

/**
 * A case on the order closed, in that change's transaction: when the order's release is still
 * pending, `funds-release:{orderId}` is signalled (signal-with-start through the start outbox), so
 * a release held back by the case runs now. Nothing when the order has no pending release.
 */
export async function requestReleaseAfterCase(
  tx: EntityManager,
  orderId: string,
  caseId: string,
  caseClosed: FundsReleaseCaseClosedStart,
): Promise<void> {
  const [pending]: Array<{ seconds: number; available_on: Date }> = await tx.query(
    `SELECT GREATEST(0, ceil(extract(epoch FROM available_on - now())))::int AS seconds, available_on
       FROM transfers WHERE order_id = $1 AND type = 'TRANSFER' AND status = 'PENDING'`,
    [orderId],
  );
  if (pending) await requestWorkflowStart(tx, caseClosed(orderId, pending.seconds, pending.available_on, caseId));
}

/** The transfers of the given orders, oldest first, grouped by order (for order views). */
export async function transfersOfOrders(db: DataSource | EntityManager, orderIds: string[]): Promise<Map<string, TransferView[]>> {
  const rows: TransferView[] = await db.query(`SELECT ${TRANSFER_COLUMNS} FROM transfers WHERE order_id = ANY($1) ORDER BY id`, [orderIds]);
  const byOrder = new Map<string, TransferView[]>();
  for (const row of rows) byOrder.set(row.orderId, [...(byOrder.get(row.orderId) ?? []), row]);
  return byOrder;
}

export interface TransferPage {
  transfers: TransferView[];
  /** The id to continue after; null on the last page. */
  cursor: string | null;
}

/**
 * A seller's transfers, newest first, `size` at a time after the `cursor` transfer (ids are
 * time-ordered UUID v7). A cursor that is not one of the seller's transfers is a 400: a client
 * bug, not an empty page.
 */
export async function listSellerTransfers(
  db: DataSource,
  sellerId: string,
  page: { cursor?: string; size: number },
): Promise<TransferPage> {
  if (page.cursor) {
    const [known] = await db.query(`SELECT 1 FROM transfers WHERE id = $1 AND seller_id = $2`, [page.cursor, sellerId]);
    if (!known)
      throw invalid('invalid-cursor', 'The cursor is not one this list returned.', [
        { in: 'query', field: 'cursor', message: 'Unknown cursor.' },
      ]);
  }
  const rows: TransferView[] = await db.query(
    `SELECT ${TRANSFER_COLUMNS} FROM transfers WHERE seller_id = $1 AND ($2::uuid IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [sellerId, page.cursor ?? null, page.size + 1],
  );
  const more = rows.length > page.size;
  const transfers = rows.slice(0, page.size);
  return { transfers, cursor: more ? transfers[transfers.length - 1]!.id : null };
}
