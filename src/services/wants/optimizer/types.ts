/**
 * What the basket optimizer is given and what it answers. The caller (the wants module's
 * database side) loads the candidates and applies every eligibility rule; the optimizer only sees
 * numbers, so it stays a pure function that tests can check against brute force.
 */

export interface BasketProblem {
  /** Listings that fit each line (a listing may fit several lines). */
  lines: { id: string; quantity: number; listingIds: string[] }[];
  /** Pence per unit; stock net of holds. */
  listings: { id: string; sellerId: string; unitPrice: number; available: number }[];
  /** Cheapest delivery option serving the destination, charged once per chosen seller. */
  sellers: { id: string; deliveryOptionId: string; deliveryPrice: number }[];
  maxSellers?: number;
  timeLimitMs: number;
}

export interface BasketSolution {
  /** TIME_LIMIT = best found within the limit, with a true lower bound. */
  status: 'OPTIMAL' | 'TIME_LIMIT';
  /** Integers, pence. */
  total: number;
  itemsTotal: number;
  deliveryTotal: number;
  /** Proven lower bound on `total` for baskets that fill as many units as this one. */
  lowerBound: number;
  /** (total − lowerBound) / total; 0 when optimal or when total is 0. */
  gap: number;
  /**
   * The cheapest fitting items for the same per-line quantities, each distinct seller's delivery
   * charged once, ignoring maxSellers: what a buyer picking the cheapest copy of each card pays.
   */
  naiveTotal: number;
  /** Wall time of preparation, model build and solve. */
  solveMs: number;
  sellers: { sellerId: string; deliveryOptionId: string; deliveryPrice: number; itemsTotal: number }[];
  picks: { lineId: string; listingId: string; sellerId: string; quantity: number; unitPrice: number }[];
  /** Units that could not be placed (no stock fits, or maxSellers binds). */
  unfilled: { lineId: string; missing: number }[];
}
