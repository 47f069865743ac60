import type { EntityManager } from 'typeorm';
import { ItemSale } from '../../db/entities';
import { newId } from '../../ids';

export interface CompletedSale {
  itemUrn: string;
  listingId: string;
  orderId: string | null;
  /** Pence per unit. */
  unitPrice: number;
  quantity: number;
  /** The listing's condition as sold: the price guide groups sales by it (docs/price-guide.md). */
  condition: string;
  soldAt: Date;
}

/**
 * Appends completed sales to the ledger price history and the price guide are computed from. Call it inside the
 * transaction that commits the order, so history never shows a sale that was rolled back.
 */
export async function recordSales(tx: EntityManager, sales: CompletedSale[]): Promise<void> {
  if (sales.length === 0) return;
  await tx.getRepository(ItemSale).insert(sales.map((s) => ({ id: newId(), ...s })));
}
