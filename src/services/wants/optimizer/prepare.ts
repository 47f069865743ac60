import type { BasketProblem } from './types';

/**
 * The problem in index form after the reductions that provably keep an optimal basket, so that
 * the flow helpers and the model builder work on typed arrays instead of string ids.
 *
 * A "pair" is one (line, listing) combination that may carry units: the variable x[line, listing].
 * A "group" is all pairs of one line at one seller: the unit of the linking constraints.
 */
export interface PreparedBasket {
  readonly problem: BasketProblem;
  /** Per line (problem order): units wanted. */
  readonly quantity: Int32Array;
  /** Per listing (problem order). */
  readonly price: Float64Array;
  readonly available: Int32Array;
  readonly sellerOf: Int32Array;
  /** Per seller (problem order). */
  readonly delivery: Float64Array;
  /** Surviving pairs, grouped by line in line order, cheapest listing first within a line. */
  readonly pairLine: Int32Array;
  readonly pairListing: Int32Array;
  /** Upper bound of x[pair]: min(quantity, available). */
  readonly pairUpper: Int32Array;
  /** Pairs of line l are lineStart[l] … lineStart[l + 1] − 1. */
  readonly lineStart: Int32Array;
  /** Per listing: its pairs (empty for listings presolve dropped). */
  readonly pairsOfListing: readonly (readonly number[])[];
  readonly groups: readonly PairGroup[];
  readonly groupOfPair: Int32Array;
  /** Per seller: its groups (empty for sellers with no surviving listing). */
  readonly groupsOfSeller: readonly (readonly number[])[];
  /** Sellers with at least one surviving pair, ascending. */
  readonly usefulSellers: readonly number[];
  /** Listings with stock that presolve proved never needed. */
  readonly dominatedListings: number;
  /** (line, listing) pairs presolve proved never needed: a listing elsewhere, delivery included, is no dearer. */
  readonly replacedPairs: number;
}

export interface PairGroup {
  readonly line: number;
  readonly seller: number;
  readonly pairs: readonly number[];
  /** Most units this seller can put on this line: min(quantity, Σ pairUpper). */
  readonly cap: number;
}

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

/** Throws RangeError on input the optimizer cannot trust (costs must be whole pence: bounds are rounded on that basis). */
function validate(problem: BasketProblem): void {
  if (!(typeof problem.timeLimitMs === 'number' && problem.timeLimitMs > 0 && Number.isFinite(problem.timeLimitMs))) {
    throw new RangeError('timeLimitMs must be a positive finite number');
  }
  if (problem.maxSellers !== undefined && !isCount(problem.maxSellers)) throw new RangeError('maxSellers must be a non-negative integer');
  const unique = (ids: string[], what: string) => {
    if (new Set(ids).size !== ids.length) throw new RangeError(`duplicate ${what} id`);
  };
  unique(
    problem.lines.map((l) => l.id),
    'line',
  );
  unique(
    problem.listings.map((l) => l.id),
    'listing',
  );
  unique(
    problem.sellers.map((s) => s.id),
    'seller',
  );
  for (const line of problem.lines)
    if (!isCount(line.quantity)) throw new RangeError(`line ${line.id}: quantity must be a non-negative integer`);
  for (const listing of problem.listings) {
    if (!isCount(listing.unitPrice)) throw new RangeError(`listing ${listing.id}: unitPrice must be a non-negative integer (pence)`);
    // Holds may exceed stock for a moment: a negative net stock is simply none.
    if (!Number.isSafeInteger(listing.available)) throw new RangeError(`listing ${listing.id}: available must be an integer`);
  }
  for (const seller of problem.sellers) {
    if (!isCount(seller.deliveryPrice)) throw new RangeError(`seller ${seller.id}: deliveryPrice must be a non-negative integer (pence)`);
  }
}

export function prepare(problem: BasketProblem): PreparedBasket {
  validate(problem);
  const lineCount = problem.lines.length;
  const listingCount = problem.listings.length;
  const sellerIndex = new Map(problem.sellers.map((s, i) => [s.id, i]));
  const listingIndex = new Map(problem.listings.map((l, i) => [l.id, i]));

  const quantity = Int32Array.from(problem.lines, (l) => l.quantity);
  const price = Float64Array.from(problem.listings, (l) => l.unitPrice);
  const available = Int32Array.from(problem.listings, (l) => Math.max(0, l.available));
  const delivery = Float64Array.from(problem.sellers, (s) => s.deliveryPrice);
  const sellerOf = Int32Array.from(problem.listings, (l) => {
    const s = sellerIndex.get(l.sellerId);
    if (s === undefined) throw new RangeError(`listing ${l.id}: seller ${l.sellerId} is not among the sellers`);
    return s;
  });

  // The lines each listing fits (lines wanting nothing are left out: they take no units).
  const linesOf: number[][] = Array.from({ length: listingCount }, () => []);
  const listingsOf: number[][] = problem.lines.map((line, l) => {
    const seen = new Set<number>();
    for (const id of line.listingIds) {
      const j = listingIndex.get(id);
      if (j === undefined) throw new RangeError(`line ${line.id}: listing ${id} is not among the listings`);
      if (seen.has(j) || quantity[l] === 0 || available[j] === 0) continue;
      seen.add(j);
      linesOf[j]!.push(l);
    }
    return [...seen];
  });

  // Dominance within one seller: listings of that seller fitting exactly the same lines are
  // interchangeable except for price. Once the cheapest of them hold enough stock for everything
  // those lines want, a dearer one is never needed: in any basket that uses it, the cheaper ones
  // have spare stock (together they hold at least what the lines can take), and moving its units
  // there keeps every constraint (same lines, same seller, so the same delivery) and costs no more.
  const kept = new Uint8Array(listingCount);
  const bySignature = new Map<string, number[]>();
  for (let j = 0; j < listingCount; j += 1) {
    const fits = linesOf[j]!;
    if (fits.length === 0) continue;
    fits.sort((a, b) => a - b);
    const key = `${sellerOf[j]}|${fits.join(',')}`;
    const members = bySignature.get(key);
    if (members) members.push(j);
    else bySignature.set(key, [j]);
  }
  let dominatedListings = 0;
  for (const members of bySignature.values()) {
    const demand = linesOf[members[0]!]!.reduce((sum, l) => sum + quantity[l]!, 0);
    members.sort((a, b) => price[a]! - price[b]! || a - b);
    let stock = 0;
    for (const j of members) {
      if (stock >= demand) {
        dominatedListings += 1;
        continue;
      }
      kept[j] = 1;
      stock += Math.min(available[j]!, demand);
    }
  }

  // Dominance across sellers, per line, when the seller count is free to grow (no binding
  // maxSellers). A listing k that never runs out (its stock covers every line it fits) and whose
  // price plus its seller's whole delivery is at most listing j's price makes the pair (line, j)
  // useless: moving j's units on that line to k costs at most price_k + delivery − price_j ≤ 0
  // even if k's seller was not used before. Ties go to the lower index, so the best such k (by
  // price + delivery) is never removed itself and every removal has a surviving replacement.
  const sellersWithStock = new Set<number>();
  for (let j = 0; j < listingCount; j += 1) if (kept[j] === 1) sellersWithStock.add(sellerOf[j]!);
  const sellersMayGrow = problem.maxSellers === undefined || problem.maxSellers >= sellersWithStock.size;
  const replacement = new Int32Array(lineCount).fill(-1);
  if (sellersMayGrow) {
    const replacementCost = new Float64Array(lineCount).fill(Infinity);
    for (let j = 0; j < listingCount; j += 1) {
      if (kept[j] === 0) continue;
      const demand = linesOf[j]!.reduce((sum, l) => sum + quantity[l]!, 0);
      if (available[j]! < demand) continue;
      const cost = price[j]! + delivery[sellerOf[j]!]!;
      for (const l of linesOf[j]!) {
        if (cost < replacementCost[l]!) {
          replacementCost[l] = cost;
          replacement[l] = j;
        }
      }
    }
  }
  const replaceable = (l: number, j: number) => {
    const k = replacement[l]!;
    if (k === -1 || k === j) return false;
    const cost = price[k]! + delivery[sellerOf[k]!]!;
    return cost < price[j]! || (cost === price[j]! && k < j);
  };

  // Pairs, line by line, cheapest first (the greedy fill and the per-line flow rely on that order).
  const pairLine: number[] = [];
  const pairListing: number[] = [];
  const lineStart = new Int32Array(lineCount + 1);
  let replacedPairs = 0;
  for (let l = 0; l < lineCount; l += 1) {
    lineStart[l] = pairLine.length;
    const mine = listingsOf[l]!.filter((j) => {
      if (kept[j] === 0) return false;
      if (!replaceable(l, j)) return true;
      replacedPairs += 1;
      return false;
    });
    mine.sort((a, b) => price[a]! - price[b]! || a - b);
    for (const j of mine) {
      pairLine.push(l);
      pairListing.push(j);
    }
  }
  lineStart[lineCount] = pairLine.length;
  const pairCount = pairLine.length;
  const pairUpper = new Int32Array(pairCount);
  const pairsOfListing: number[][] = Array.from({ length: listingCount }, () => []);
  for (let p = 0; p < pairCount; p += 1) {
    pairUpper[p] = Math.min(quantity[pairLine[p]!]!, available[pairListing[p]!]!);
    pairsOfListing[pairListing[p]!]!.push(p);
  }

  // Groups: the pairs of one line at one seller.
  const groups: PairGroup[] = [];
  const groupOfPair = new Int32Array(pairCount);
  const groupsOfSeller: number[][] = problem.sellers.map(() => []);
  for (let l = 0; l < lineCount; l += 1) {
    const bySeller = new Map<number, number[]>();
    for (let p = lineStart[l]!; p < lineStart[l + 1]!; p += 1) {
      const s = sellerOf[pairListing[p]!]!;
      const members = bySeller.get(s);
      if (members) members.push(p);
      else bySeller.set(s, [p]);
    }
    for (const [seller, pairs] of bySeller) {
      const g = groups.length;
      const supply = pairs.reduce((sum, p) => sum + pairUpper[p]!, 0);
      groups.push({ line: l, seller, pairs, cap: Math.min(quantity[l]!, supply) });
      for (const p of pairs) groupOfPair[p] = g;
      groupsOfSeller[seller]!.push(g);
    }
  }
  const usefulSellers = groupsOfSeller.flatMap((g, s) => (g.length > 0 ? [s] : []));

  return {
    problem,
    quantity,
    price,
    available,
    sellerOf,
    delivery,
    pairLine: Int32Array.from(pairLine),
    pairListing: Int32Array.from(pairListing),
    pairUpper,
    lineStart,
    pairsOfListing,
    groups,
    groupOfPair,
    groupsOfSeller,
    usefulSellers,
    dominatedListings,
    replacedPairs,
  };
}
