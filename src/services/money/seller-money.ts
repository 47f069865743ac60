import type { DataSource } from 'typeorm';
import { CURRENCY, sellerBalances } from './ledger';
import { listSellerTransfers, releaseOrderFunds, type TransferPage } from './transfers';

/** A seller's money as the seller routes and the worker see it (docs/money.md). */
export class SellerMoney {
  constructor(private readonly db: DataSource) {}

  async balance(sellerId: string): Promise<{ available: number; pending: number; currency: string }> {
    return { ...(await sellerBalances(this.db.manager, sellerId)), currency: CURRENCY };
  }

  transfers(sellerId: string, page: { cursor?: string; size: number }): Promise<TransferPage> {
    return listSellerTransfers(this.db, sellerId, page);
  }

  /** The end of a received order's hold period; false when there was nothing left to release. */
  releaseOrderFunds(orderId: string): Promise<boolean> {
    return releaseOrderFunds(this.db, orderId);
  }
}
