import type { DataSource } from 'typeorm';
import { releaseOrderFunds } from '../src/services/money/transfers';

export interface MoneyActivityDeps {
  db: DataSource;
}

export interface MoneyActivities {
  /** Moves a received order's seller share pending → available; false when already done. */
  releaseOrderFunds(orderId: string): Promise<boolean>;
}

export function createMoneyActivities(deps: MoneyActivityDeps): MoneyActivities {
  return { releaseOrderFunds: (orderId) => releaseOrderFunds(deps.db, orderId) };
}
