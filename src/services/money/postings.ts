import type { EntityManager } from 'typeorm';
import { postLedger } from './ledger';

/** The platform's seller fee on one order: `bps` basis points of its total, rounded down. */
export function sellerFee(orderTotal: number, bps: number): number {
  return Math.floor((orderTotal * bps) / 10_000);
}

export interface PaidPurchase {
  purchaseId: string;
  fee: number;
  total: number;
  orders: Array<{ orderId: string; sellerId: string; total: number }>;
}

/**
 * A payment commit: the buyer's money comes in; the buyer fee and each order's seller fee are
 * the platform's; the rest of each order waits in its seller's pending account until the order
 * is received and the hold period has passed. Posted in the transaction that commits the purchase.
 */
export async function postPayment(tx: EntityManager, p: PaidPurchase, sellerFeeBps: number): Promise<void> {
  await postLedger(tx, {
    event: 'PAYMENT',
    idempotencyKey: `payment:${p.purchaseId}`,
    purchaseId: p.purchaseId,
    entries: [
      { account: 'buyer_payments', amount: -p.total },
      { account: 'platform_buyer_fee', amount: p.fee },
      ...p.orders.flatMap((o) => {
        const fee = sellerFee(o.total, sellerFeeBps);
        return [
          { account: 'platform_seller_fee' as const, amount: fee, orderId: o.orderId },
          { account: 'seller_pending' as const, amount: o.total - fee, sellerId: o.sellerId, orderId: o.orderId },
        ];
      }),
    ],
  });
}
