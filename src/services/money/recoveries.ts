import type { EntityManager } from 'typeorm';
import { newId } from '../../ids';
import { CURRENCY, postLedger, sellerBalances } from './ledger';

/**
 * Money came into the seller's available balance (a release, a failed payout's return): what the
 * platform still carries in `platform_refund_losses` for this seller's orders is repaid from it
 * first, oldest order first, as far as available goes. One LOSS_RECOVERED posting under `key` and
 * one RECOVERY transfer per repaid order, in the caller's transaction, which holds the seller's
 * money lock. Returns what was recovered.
 */
export async function recoverRefundLosses(tx: EntityManager, sellerId: string, key: string): Promise<number> {
  const owed: Array<{ order_id: string; owed: number }> = await tx.query(
    `SELECT e.order_id, (-sum(e.amount))::int AS owed
       FROM ledger_entries e JOIN orders o ON o.id = e.order_id
      WHERE e.account = 'platform_refund_losses' AND o.seller_id = $1
      GROUP BY e.order_id HAVING sum(e.amount) < 0 ORDER BY e.order_id`,
    [sellerId],
  );
  if (owed.length === 0) return 0;
  let left = (await sellerBalances(tx, sellerId)).available;
  const repaid: Array<{ orderId: string; amount: number }> = [];
  for (const o of owed) {
    const amount = Math.min(o.owed, left);
    if (amount <= 0) break;
    repaid.push({ orderId: o.order_id, amount });
    left -= amount;
  }
  if (repaid.length === 0) return 0;
  const posted = await postLedger(tx, {
    event: 'LOSS_RECOVERED',
    idempotencyKey: `recovery:${key}`,
    entries: repaid.flatMap((r) => [
      { account: 'seller_available' as const, amount: -r.amount, sellerId, orderId: r.orderId },
      { account: 'platform_refund_losses' as const, amount: r.amount, orderId: r.orderId },
    ]),
  });
  if (!posted) return 0;
  await tx.query(
    `INSERT INTO transfers (id, seller_id, order_id, type, status, amount, currency, available_on)
     SELECT r.id, $1, r.order_id, 'RECOVERY', 'COMPLETED', r.amount, $2, now()
       FROM unnest($3::uuid[], $4::uuid[], $5::bigint[]) AS r(id, order_id, amount)`,
    [sellerId, CURRENCY, repaid.map(() => newId()), repaid.map((r) => r.orderId), repaid.map((r) => r.amount)],
  );
  return repaid.reduce((sum, r) => sum + r.amount, 0);
}
