import type { DataSource } from 'typeorm';
import type { FundsRelease } from '../../../workflows/contracts/funds-release';
import { isActiveSeller } from '../sellers';
import { CURRENCY, sellerBalances } from './ledger';
import {
  createPayout,
  listSellerPayouts,
  markPayoutInTransit,
  nextPayoutRun,
  payoutRunPage,
  requestPayoutRun,
  type PayoutStart,
  settlePayout,
  type PayoutStatus,
  type PayoutView,
} from './payouts';
import { findStuckMoney, reconcileStuckMoney, recentReconciliations, type Reconciliation, type StuckMoney } from './reconciler';
import { listSellerTransfers, releaseOrderFunds, type TransferPage } from './transfers';
import type { WorkflowStart } from '../workflow-starts/start';

export interface MoneyOptions {
  payoutIntervalMs: number;
  payoutArrivalDays: number;
  payoutTransitSeconds: number;
  stuckAfterSeconds: number;
}

/** A seller's money as the seller routes and the worker see it (docs/money.md). */
export class SellerMoney {
  constructor(
    private readonly db: DataSource,
    private readonly options: MoneyOptions,
    private readonly payoutStart: PayoutStart,
  ) {}

  /**
   * The seller's balance, and when the next payout run pays them: null when it would pay nothing
   * (nothing available, or the seller is suspended, whose money stays on the platform), the run
   * itself skipping such sellers (payouts.ts `payoutRunPage`).
   */
  async balance(sellerId: string): Promise<{ available: number; pending: number; currency: string; nextPayoutDate: string | null }> {
    const balances = await sellerBalances(this.db.manager, sellerId);
    const paid = balances.available > 0 && (await isActiveSeller(this.db, sellerId));
    const nextPayoutDate = paid ? nextPayoutRun(new Date(), this.options.payoutIntervalMs).toISOString() : null;
    return { ...balances, currency: CURRENCY, nextPayoutDate };
  }

  transfers(sellerId: string, page: { cursor?: string; size: number }): Promise<TransferPage> {
    return listSellerTransfers(this.db, sellerId, page);
  }

  payouts(sellerId: string, page: { cursor?: string; size: number }): Promise<{ payouts: PayoutView[]; cursor: string | null }> {
    return listSellerPayouts(this.db, sellerId, page);
  }

  /** The end of a received order's hold period (docs/money.md): released, nothing pending, or held by an open case. */
  releaseOrderFunds(orderId: string): Promise<FundsRelease> {
    return releaseOrderFunds(this.db, orderId);
  }

  payoutRunPage(runDate: string, after: string | null): Promise<{ starts: WorkflowStart[]; next: string | null }> {
    return payoutRunPage(this.db, runDate, after, { transitSeconds: this.options.payoutTransitSeconds }, this.payoutStart);
  }

  /** The payout run before its payouts were child workflows (payouts.ts `requestPayoutRun`). */
  requestPayoutRun(runDate: string): Promise<number> {
    return requestPayoutRun(this.db, runDate, { transitSeconds: this.options.payoutTransitSeconds }, this.payoutStart);
  }

  createPayout(sellerId: string, runDate: string): Promise<string | null> {
    return createPayout(this.db, sellerId, runDate, this.options.payoutArrivalDays);
  }

  markPayoutInTransit(payoutId: string): Promise<void> {
    return markPayoutInTransit(this.db, payoutId);
  }

  settlePayout(payoutId: string): Promise<PayoutStatus> {
    return settlePayout(this.db, payoutId);
  }

  /** Money overdue as of `asOf` (docs/money.md "Reconciler"). */
  stuckMoney(asOf: Date): Promise<StuckMoney[]> {
    return findStuckMoney(this.db, this.bounds(asOf));
  }

  /** Finishes the money overdue as of `asOf` and records what it did. */
  reconcile(asOf: Date): Promise<Reconciliation[]> {
    return reconcileStuckMoney(this.db, this.bounds(asOf));
  }

  reconciliations(size: number): Promise<Reconciliation[]> {
    return recentReconciliations(this.db, size);
  }

  private bounds(asOf: Date) {
    return { asOf, payoutTransitSeconds: this.options.payoutTransitSeconds, stuckAfterSeconds: this.options.stuckAfterSeconds };
  }
}
