import type { DataSource } from 'typeorm';
import { OrderUpdates, type OrderActionStarts, type OrderTimings } from '../src/services/orders/order-updates';

export interface OrderActivityDeps {
  db: DataSource;
  orderTimings: OrderTimings;
  starts: OrderActionStarts;
}

export interface OrderActivities {
  /** Confirms receipt of a shipped order on the buyer's behalf; false when nothing was left to do. */
  autoReceiveOrder(orderId: string): Promise<boolean>;
}

export function createOrderActivities(deps: OrderActivityDeps): OrderActivities {
  const updates = new OrderUpdates(deps.db, deps.orderTimings, deps.starts);
  return {
    autoReceiveOrder: async (orderId) => (await updates.apply(orderId, { role: 'system' }, { action: 'receive' })) !== null,
  };
}
