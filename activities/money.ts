import type { SellerMoney } from '../src/services/money/seller-money';

export interface MoneyActivityDeps {
  sellerMoney: SellerMoney;
}

export interface MoneyActivities {
  /** Moves a received order's seller share pending → available; false when already done. */
  releaseOrderFunds(orderId: string): Promise<boolean>;
}

export function createMoneyActivities({ sellerMoney }: MoneyActivityDeps): MoneyActivities {
  return { releaseOrderFunds: (orderId) => sellerMoney.releaseOrderFunds(orderId) };
}
