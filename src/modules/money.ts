import { createMoneyActivities } from '../../activities/money';
import { moneySimulatorRoutes } from '../http/routes/money-simulator';
import { sellerMoneyRoutes } from '../http/routes/seller-money';
import { SellerMoneyPages } from '../services/money/money-pages';
import { SellerMoney } from '../services/money/seller-money';
import { ensureMoneyReconcileSchedule } from '../temporal/money-reconcile-schedule';
import { ensurePayoutSchedule } from '../temporal/payout-schedule';
import type { FeatureModule } from './feature-module';

/** What the seller money routes use. */
export interface MoneyServices {
  sellerMoney: SellerMoney;
  sellerMoneyPages: SellerMoneyPages;
}

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
    activities: ({ config, db }) => ({ ...createMoneyActivities({ sellerMoney: new SellerMoney(db, config.money) }) }),
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
