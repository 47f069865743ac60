import type { DataSource } from 'typeorm';
import { OrderUpdates } from '../src/services/orders/order-updates';
import { activityReviewWindows } from './reviews';

export interface OrderActivityDeps {
  db: DataSource;
  reviewWindowSeconds: number;
}

export interface OrderActivities {
  /** Confirms receipt of a shipped order on the buyer's behalf; false when nothing was left to do. */
  autoReceiveOrder(orderId: string): Promise<boolean>;
}

export function createOrderActivities(deps: OrderActivityDeps): OrderActivities {
  // A system receipt opens no case and ships nothing; it may complete the purchase.
  const reviewWindows = activityReviewWindows(deps);
  const updates = new OrderUpdates(deps.db, {
    startCase: () => Promise.reject(new Error('a receipt opens no case')),
    startReceiptTimer: () => Promise.reject(new Error('a receipt ships nothing')),
    purchaseCompleted: (purchaseId) => reviewWindows.open(purchaseId),
  });
  return {
    autoReceiveOrder: async (orderId) => (await updates.apply(orderId, { role: 'system' }, { action: 'receive' })) !== null,
  };
}
