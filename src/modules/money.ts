import { createMoneyActivities } from '../../activities/money';
import { moneySimulatorRoutes } from '../http/routes/money-simulator';
import { sellerMoneyRoutes } from '../http/routes/seller-money';
import { SellerMoneyPages } from '../services/money/money-pages';
import { orderCaseClosedSignal } from '../../workflows/contracts/funds-release';
import type { PayoutStart } from '../services/money/payouts';
import { SellerMoney } from '../services/money/seller-money';
import type { FundsReleaseCaseClosedStart, FundsReleaseStart } from '../services/money/transfers';
import { ensureMoneyReconcileSchedule } from '../temporal/money-reconcile-schedule';
import { ensurePayoutSchedule } from '../temporal/payout-schedule';
import type { FeatureModule } from './feature-module';
import { start } from './workflow-start';

/** What the seller money routes use. */
export interface MoneyServices {
  sellerMoney: SellerMoney;
  sellerMoneyPages: SellerMoneyPages;
}

/** The ids of this feature's workflows: an operator finds one from the object's id. */
export const moneyWorkflowIds = {
  fundsRelease: (orderId: string) => `funds-release:${orderId}`,
  payout: (sellerId: string, runDate: string) => `payout:${sellerId}:${runDate}`,
};

/** One release per order: its seller share moves pending → available after the hold period. */
export const fundsReleaseStart: FundsReleaseStart = (orderId, afterSeconds, releaseAt) =>
  start(
    'fundsReleaseWorkflow',
    moneyWorkflowIds.fundsRelease(orderId),
    { orderId, afterSeconds, releaseAt: releaseAt.toISOString() },
    { summary: `Release of order ${orderId}'s seller share after ${afterSeconds} s` },
  );

/**
 * A case on the order closed while its release is pending: a signal-with-start of
 * `funds-release:{orderId}` (after the receipt's start, in outbox order), so a release held
 * back by an open case checks again. Once the release has ended, REJECT_DUPLICATE makes it a
 * no-op. One request per case.
 */
export const fundsReleaseCaseClosedStart: FundsReleaseCaseClosedStart = (orderId, afterSeconds, releaseAt, caseId) =>
  start(
    'fundsReleaseWorkflow',
    moneyWorkflowIds.fundsRelease(orderId),
    { orderId, afterSeconds, releaseAt: releaseAt.toISOString() },
    {
      signal: { name: orderCaseClosedSignal.name, args: [] },
      // Worded as the plain start's summary: whichever request starts the workflow sets it.
      summary: `Release of order ${orderId}'s seller share after ${afterSeconds} s`,
    },
    `case-closed:${caseId}`,
  );

/** `payout:{sellerId}:{runDate}`: one per seller per run date, ever. Started as children of the payout run. */
export const payoutStart: PayoutStart = (sellerId, runDate, transitSeconds) =>
  start(
    'payoutWorkflow',
    moneyWorkflowIds.payout(sellerId, runDate),
    { sellerId, runDate, transitSeconds },
    { summary: `Payout of seller ${sellerId} for ${runDate}` },
  );

/**
 * A seller's money (docs/money.md): balance, transfers and payouts, the hosted payout pages of the
 * money simulator; in the worker, the `funds-release:{orderId}` and `payout:{sellerId}:{date}`
 * workflows' activities, the `payout-run` Schedule that starts the payouts and the
 * `money-reconcile` Schedule. The ledger (`sellerMoney`) is shared: orders, cases and operators
 * move money through it inside their own transactions.
 */
export const moneyModule: FeatureModule<MoneyServices> = {
  name: 'money',
  tags: {
    'Seller finance': "The seller's money: balance, transfers (releases and reversals) and payouts. See docs/money.md.",
  },
  api: {
    services: ({ db, shared }) => ({
      sellerMoney: shared.sellerMoney,
      sellerMoneyPages: new SellerMoneyPages(db, shared.signedLinks, shared.sellerMoney),
    }),
    routes: (services) => [...moneySimulatorRoutes(services), ...sellerMoneyRoutes(services)],
  },
  worker: {
    activities: ({ config, db }) => ({ ...createMoneyActivities({ sellerMoney: new SellerMoney(db, config.money, payoutStart) }) }),
    schedules: async ({ config, temporal }) => {
      const taskQueue = config.temporal.taskQueue;
      await Promise.all([
        // Created once and then left alone: an operator may have paused it or changed its spec.
        ensurePayoutSchedule(temporal, { intervalMs: config.money.payoutIntervalMs, taskQueue }),
        ensureMoneyReconcileSchedule(temporal, { taskQueue, everyMs: config.money.reconcileEveryMs }),
      ]);
    },
  },
};
