import type { EntityManager } from 'typeorm';
import { newId } from '../../ids';

/**
 * Ledger accounts (docs/money.md). Each account's balance is the sum of its entries. Money the
 * platform holds is positive on the accounts that hold it (fees, seller balances); the external
 * accounts are the other side: `buyer_payments` goes negative by what buyers paid in, `refunds`
 * and `payouts` go positive by what left to buyers and sellers. All accounts together sum to zero.
 */
export type LedgerAccount =
  | 'buyer_payments'
  | 'platform_buyer_fee'
  | 'platform_seller_fee'
  | 'seller_pending'
  | 'seller_available'
  | 'payouts_in_transit'
  | 'platform_refund_losses'
  | 'refunds'
  | 'payouts';

export type LedgerEvent = 'PAYMENT' | 'FUNDS_RELEASED' | 'REFUND' | 'LOSS_RECOVERED' | 'PAYOUT_CREATED' | 'PAYOUT_PAID' | 'PAYOUT_FAILED';

export interface LedgerEntry {
  account: LedgerAccount;
  /** Pence; signed. Zero entries are dropped. */
  amount: number;
  /** Required on seller accounts, absent elsewhere (a CHECK constraint enforces it). */
  sellerId?: string;
  orderId?: string;
}

export interface LedgerPosting {
  event: LedgerEvent;
  /** Same key, same posting: a retried event posts nothing the second time. */
  idempotencyKey: string;
  purchaseId?: string;
  orderId?: string;
  entries: LedgerEntry[];
}

export const CURRENCY = 'GBP';

/**
 * The one way money is written: one transaction of entries that sum to zero, in the caller's
 * database transaction (so it commits with the business change or not at all). The sum is
 * checked here, and again at commit by a deferred constraint trigger. Returns false when a
 * posting with this idempotency key exists already.
 */
export async function postLedger(tx: EntityManager, posting: LedgerPosting): Promise<boolean> {
  const entries = posting.entries.filter((e) => e.amount !== 0);
  for (const e of entries) if (!Number.isSafeInteger(e.amount)) throw new Error(`ledger amount ${e.amount} is not whole pence`);
  const sum = entries.reduce((s, e) => s + e.amount, 0);
  if (sum !== 0) throw new Error(`ledger posting ${posting.idempotencyKey} sums to ${sum}, not 0`);
  const id = newId();
  const inserted: unknown[] = await tx.query(
    `INSERT INTO ledger_transactions (id, event, idempotency_key, purchase_id, order_id) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (idempotency_key) DO NOTHING RETURNING id`,
    [id, posting.event, posting.idempotencyKey, posting.purchaseId ?? null, posting.orderId ?? null],
  );
  if (inserted.length === 0) return false;
  if (entries.length === 0) return true;
  await tx.query(
    `INSERT INTO ledger_entries (id, transaction_id, account, seller_id, order_id, amount, currency)
     SELECT e.id, $1, e.account, e.seller_id, e.order_id, e.amount, $7
       FROM unnest($2::uuid[], $3::text[], $4::uuid[], $5::uuid[], $6::bigint[]) AS e(id, account, seller_id, order_id, amount)`,
    [
      id,
      entries.map(() => newId()),
      entries.map((e) => e.account),
      entries.map((e) => e.sellerId ?? null),
      entries.map((e) => e.orderId ?? null),
      entries.map((e) => e.amount),
      CURRENCY,
    ],
  );
  return true;
}

/**
 * Serialises the changes to one seller's available money (payouts, settlements, reversals, releases)
 * for the rest of the transaction, so a payout can never take what a concurrent refund takes too.
 */
export async function lockSellerMoney(tx: EntityManager, sellerId: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('seller-money:' || $1, 0))`, [sellerId]);
}

/** A seller's balances: what is held for undelivered or unreleased orders, and what can be paid out. */
export async function sellerBalances(
  db: EntityManager | { query: EntityManager['query'] },
  sellerId: string,
): Promise<{ pending: number; available: number }> {
  const [row]: Array<{ pending: string; available: string }> = await db.query(
    `SELECT COALESCE(sum(amount) FILTER (WHERE account = 'seller_pending'), 0) AS pending,
            COALESCE(sum(amount) FILTER (WHERE account = 'seller_available'), 0) AS available
       FROM ledger_entries WHERE seller_id = $1`,
    [sellerId],
  );
  return { pending: Number(row!.pending), available: Number(row!.available) };
}

/** What the seller's pending account holds for one order (their share, less refunds so far). */
export async function orderPending(tx: EntityManager, orderId: string): Promise<number> {
  const [row]: Array<{ pending: string }> = await tx.query(
    `SELECT COALESCE(sum(amount), 0) AS pending FROM ledger_entries WHERE order_id = $1 AND account = 'seller_pending'`,
    [orderId],
  );
  return Number(row!.pending);
}
