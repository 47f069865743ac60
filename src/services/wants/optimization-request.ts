/** What a buyer asks an optimization for (POST /user/wants/{id}/optimizations), as stored with it. */
export interface OptimizationRequest {
  /** The destination; resolved from `addressId` when the buyer named a saved address. */
  country: string;
  addressId: string | null;
  maxSellers: number | null;
  minSellerRating: number | null;
  excludeSellerIds: string[];
  /** The lines to fill; null: every line of the list. */
  lineIds: string[] | null;
  timeLimitMs: number;
}

/** Why a line is not (wholly) filled. */
export type UnfilledReason =
  /** No live listing fits the line (item or card, condition, language, variants). */
  | 'NO_STOCK'
  /** Listings fit, but every one costs more than the line's `maxPrice`. */
  | 'OVER_MAX_PRICE'
  /** Listings fit within `maxPrice`, but none is from a seller the basket may use (own listings, excluded or below `minSellerRating`, no delivery to the country). */
  | 'NO_ELIGIBLE_SELLER'
  /** The sellers the basket may use hold fewer units than the line wants. */
  | 'NOT_ENOUGH_STOCK'
  /** Stock exists, but not within `maxSellers` sellers. */
  | 'MAX_SELLERS';

/** An optimization's answer (docs/wants.md, "The optimizer"); amounts in pence. */
export interface OptimizationResult {
  /** OPTIMAL: `total` is proven cheapest; TIME_LIMIT: the best found, `lowerBound` proven. */
  solverStatus: 'OPTIMAL' | 'TIME_LIMIT';
  total: number;
  itemsTotal: number;
  deliveryTotal: number;
  naiveTotal: number;
  lowerBound: number;
  gap: number;
  solveMs: number;
  sellers: { sellerId: string; deliveryOptionId: string; deliveryPrice: number; itemsTotal: number }[];
  picks: { lineId: string; listingId: string; sellerId: string; quantity: number; unitPrice: number }[];
  unfilled: { lineId: string; missing: number; reason: UnfilledReason }[];
}
