import type { DataSource } from 'typeorm';
import { OrderUpdates } from '../src/services/orders/order-updates';

export interface OrderActivityDeps {
  db: DataSource;
}

export interface OrderActivities {
  /** Confirms receipt of a shipped order on the buyer's behalf; false when nothing was left to do. */
  autoReceiveOrder(orderId: string): Promise<boolean>;
}

export function createOrderActivities({ db }: OrderActivityDeps): OrderActivities {
  // A system receipt starts no workflows, so none are wired here.
  const updates = new OrderUpdates(db, {
    startCase: () => Promise.reject(new Error('a receipt opens no case')),
    startReceiptTimer: () => Promise.reject(new Error('a receipt ships nothing')),
  });
  return {
    autoReceiveOrder: async (orderId) => (await updates.apply(orderId, { role: 'system' }, { action: 'receive' })) !== null,
  };
}
