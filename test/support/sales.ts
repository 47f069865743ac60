import { newId } from '../../src/ids';
import type { CompletedSale } from '../../src/services/catalog/sales-ledger';

/** A completed sale as the payment transaction records it, of a listing and order of its own. */
export const completedSale = (itemUrn: string, condition: string, unitPrice: number, quantity: number, soldAt: number): CompletedSale => ({
  itemUrn,
  listingId: newId(),
  orderId: newId(),
  unitPrice,
  quantity,
  condition,
  soldAt: new Date(soldAt),
});
