import type { FundsRelease } from '../workflows/contracts/funds-release';
import type { PayoutStatus } from '../src/services/money/payouts';
import type { Reconciliation } from '../src/services/money/reconciler';
import type { SellerMoney } from '../src/services/money/seller-money';
import type { WorkflowStart } from '../src/services/workflow-starts/start';

export interface MoneyActivityDeps {
  sellerMoney: SellerMoney;
}

export interface MoneyActivities {
  /** Moves a received order's seller share pending → available, unless already done or a case on the order is open. */
  releaseOrderFunds(orderId: string): Promise<FundsRelease>;
  /** One page of a payout run: the payout starts of sellers with money available after `after`, and where to go on. */
  payoutRunPage(runDate: string, after: string | null): Promise<{ starts: WorkflowStart[]; next: string | null }>;
  /** The payout run before its payouts were children: all of them through the start outbox (old runs' replay only). */
  requestPayoutRun(runDate: string): Promise<number>;
  /** The seller's payout of the date (created once); null when nothing is available. */
  createPayout(sellerId: string, runDate: string): Promise<string | null>;
  markPayoutInTransit(payoutId: string): Promise<void>;
  /** The bank's answer: PAID, or FAILED with the money back in available. */
  settlePayout(payoutId: string): Promise<PayoutStatus>;
  /** Finishes money overdue as of `asOf` (ISO time: the reconciler workflow's clock) and records it. */
  reconcileMoney(asOf: string): Promise<Reconciliation[]>;
}

export function createMoneyActivities({ sellerMoney }: MoneyActivityDeps): MoneyActivities {
  return {
    releaseOrderFunds: (orderId) => sellerMoney.releaseOrderFunds(orderId),
    payoutRunPage: (runDate, after) => sellerMoney.payoutRunPage(runDate, after),
    requestPayoutRun: (runDate) => sellerMoney.requestPayoutRun(runDate),
    createPayout: (sellerId, runDate) => sellerMoney.createPayout(sellerId, runDate),
    markPayoutInTransit: (payoutId) => sellerMoney.markPayoutInTransit(payoutId),
    settlePayout: (payoutId) => sellerMoney.settlePayout(payoutId),
    reconcileMoney: (asOf) => sellerMoney.reconcile(new Date(asOf)),
  };
}
