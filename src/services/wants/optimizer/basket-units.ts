import type { PreparedBasket } from './prepare';
import type { BasketSolution } from './types';

/** A basket as units per pair, with what it costs; checked against every constraint. */
export interface UnitsBasket {
  readonly units: Int32Array;
  readonly lineFill: Int32Array;
  readonly filled: number;
  readonly itemsTotal: number;
  readonly deliveryTotal: number;
  readonly total: number;
}

/**
 * The sellers a solver solution opens (y = 1). Units are not read from the solution: the x
 * columns are continuous (see mip-model.ts) and may split a unit between equal listings, so the
 * caller re-derives them with the exact flow over these sellers, which is integral and no dearer.
 */
export function openSellers(prep: PreparedBasket, sellerCol: Int32Array, values: Float64Array): Uint8Array {
  const open = new Uint8Array(prep.delivery.length);
  for (const s of prep.usefulSellers) if (values[sellerCol[s]!]! > 0.5) open[s] = 1;
  return open;
}

/** Solver column values for a basket: its units and y = 1 for each seller it uses. */
export function columnsFromUnits(prep: PreparedBasket, sellerCol: Int32Array, numCols: number, units: Int32Array): Float64Array {
  const values = new Float64Array(numCols);
  for (let p = 0; p < units.length; p += 1) {
    if (units[p]! <= 0) continue;
    values[p] = units[p]!;
    values[sellerCol[prep.sellerOf[prep.pairListing[p]!]!]!] = 1;
  }
  return values;
}

/**
 * Totals of a basket, recomputed from its units alone: only sellers that ship something pay
 * delivery, whatever the solver's y said. Throws if the basket breaks a quantity or stock limit:
 * that would be a bug, and a wrong basket must never reach a buyer.
 */
export function measure(prep: PreparedBasket, units: Int32Array): UnitsBasket {
  const { pairLine, pairListing, sellerOf, price, delivery, quantity, available } = prep;
  const lineFill = new Int32Array(quantity.length);
  const taken = new Int32Array(available.length);
  const used = new Uint8Array(delivery.length);
  let itemsTotal = 0;
  let deliveryTotal = 0;
  for (let p = 0; p < units.length; p += 1) {
    const n = units[p]!;
    if (n === 0) continue;
    const j = pairListing[p]!;
    const l = pairLine[p]!;
    lineFill[l] = lineFill[l]! + n;
    taken[j] = taken[j]! + n;
    itemsTotal += n * price[j]!;
    const s = sellerOf[j]!;
    if (used[s] === 0) {
      used[s] = 1;
      deliveryTotal += delivery[s]!;
    }
  }
  for (let l = 0; l < quantity.length; l += 1) {
    if (lineFill[l]! > quantity[l]!) throw new Error(`basket optimizer: line ${prep.problem.lines[l]!.id} overfilled`);
  }
  for (let j = 0; j < available.length; j += 1) {
    if (taken[j]! > available[j]!) throw new Error(`basket optimizer: listing ${prep.problem.listings[j]!.id} oversold`);
  }
  const filled = lineFill.reduce((a, b) => a + b, 0);
  return { units, lineFill, filled, itemsTotal, deliveryTotal, total: itemsTotal + deliveryTotal };
}

/** The buyer-facing parts of the answer: picks in line order, sellers in first-pick order, shortfalls. */
export function describe(prep: PreparedBasket, basket: UnitsBasket): Pick<BasketSolution, 'picks' | 'sellers' | 'unfilled'> {
  const { problem, pairLine, pairListing, sellerOf } = prep;
  const picks: BasketSolution['picks'] = [];
  const sellers = new Map<number, BasketSolution['sellers'][number]>();
  for (let p = 0; p < basket.units.length; p += 1) {
    const quantity = basket.units[p]!;
    if (quantity === 0) continue;
    const listing = problem.listings[pairListing[p]!]!;
    const s = sellerOf[pairListing[p]!]!;
    picks.push({
      lineId: problem.lines[pairLine[p]!]!.id,
      listingId: listing.id,
      sellerId: listing.sellerId,
      quantity,
      unitPrice: listing.unitPrice,
    });
    let entry = sellers.get(s);
    if (!entry) {
      const seller = problem.sellers[s]!;
      entry = { sellerId: seller.id, deliveryOptionId: seller.deliveryOptionId, deliveryPrice: seller.deliveryPrice, itemsTotal: 0 };
      sellers.set(s, entry);
    }
    entry.itemsTotal += quantity * listing.unitPrice;
  }
  const unfilled = problem.lines.flatMap((line, l) =>
    line.quantity > basket.lineFill[l]! ? [{ lineId: line.id, missing: line.quantity - basket.lineFill[l]! }] : [],
  );
  return { picks, sellers: [...sellers.values()], unfilled };
}

/**
 * More units first, then less cost (ties go to the candidate). The cost phase can fill more than
 * phase 1 did only when the fill MIP ran out of time before proving its maximum.
 */
export function better(candidate: UnitsBasket, incumbent: UnitsBasket): boolean {
  return candidate.filled > incumbent.filled || (candidate.filled === incumbent.filled && candidate.total <= incumbent.total);
}
