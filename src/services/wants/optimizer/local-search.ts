import { performance } from 'node:perf_hooks';
import type { PreparedBasket } from './prepare';

/**
 * Local search over which sellers are "open" (used), the classic add / drop / swap neighbourhood
 * of facility location. The solver's own heuristics find good baskets slowly when many small
 * sellers overlap (a set-cover structure: on 200 lines and 400 sellers, HiGHS in WebAssembly
 * spent seconds before its first good basket); this finds one in milliseconds, and the solver
 * starts from it, so its time goes to the bound and to what local moves cannot see.
 *
 * Each line must keep taking exactly `targets[l]` units (the fill chosen in phase 1), from its
 * cheapest open listings. Stock shared by two lines is counted for each of them here, so the
 * caller re-derives the real basket with the exact flow and keeps it only if it is feasible and
 * cheaper. Returns the best open set found; stops at `deadline` (performance.now() time).
 */
export function improveSellers(
  prep: PreparedBasket,
  targets: Int32Array,
  start: Uint8Array,
  maxSellers: number | undefined,
  deadline: number,
): Uint8Array {
  const { groups, groupsOfSeller, usefulSellers, lineStart, pairListing, pairUpper, sellerOf, price, delivery } = prep;
  const open = Uint8Array.from(start);
  let openCount = open.reduce((a, b) => a + b, 0);
  const limit = maxSellers ?? Infinity;

  /** Cost of line l's target from its cheapest open listings, with `plus` opened and `minus` closed. */
  const lineCost = (l: number, plus: number, minus: number): number => {
    let need = targets[l]!;
    let cost = 0;
    for (let p = lineStart[l]!; need > 0 && p < lineStart[l + 1]!; p += 1) {
      const s = sellerOf[pairListing[p]!]!;
      if (s !== plus && (open[s] === 0 || s === minus)) continue;
      const take = Math.min(need, pairUpper[p]!);
      cost += take * price[pairListing[p]!]!;
      need -= take;
    }
    return need > 0 ? Infinity : cost;
  };
  const current = Float64Array.from(targets, (_, l) => lineCost(l, -1, -1));
  const stamp = new Int32Array(targets.length);
  let round = 0;

  /** Change in total cost if `plus` opens and `minus` closes (either may be −1). */
  const delta = (plus: number, minus: number): number => {
    round += 1;
    let change = (plus >= 0 ? delivery[plus]! : 0) - (minus >= 0 ? delivery[minus]! : 0);
    for (const seller of [plus, minus]) {
      if (seller < 0) continue;
      for (const g of groupsOfSeller[seller]!) {
        const l = groups[g]!.line;
        if (stamp[l] === round || targets[l] === 0) continue;
        stamp[l] = round;
        change += lineCost(l, plus, minus) - current[l]!;
        if (change === Infinity) return Infinity;
      }
    }
    return change;
  };
  const apply = (plus: number, minus: number) => {
    if (plus >= 0) open[plus] = 1;
    if (minus >= 0) open[minus] = 0;
    openCount += (plus >= 0 ? 1 : 0) - (minus >= 0 ? 1 : 0);
    for (const seller of [plus, minus]) {
      if (seller < 0) continue;
      for (const g of groupsOfSeller[seller]!) current[groups[g]!.line] = lineCost(groups[g]!.line, -1, -1);
    }
  };

  for (;;) {
    if (performance.now() > deadline) break;
    // Best single add or drop.
    let best = -1e-9;
    let move: [number, number] | null = null;
    const addGain: [number, number][] = [];
    for (const s of usefulSellers) {
      if (open[s] === 1) {
        const change = delta(-1, s);
        if (change < best) {
          best = change;
          move = [-1, s];
        }
        continue;
      }
      // Ranked even when the seller limit forbids a plain add: it then ranks the swaps.
      const change = delta(s, -1);
      addGain.push([s, change]);
      if (openCount < limit && change < best) {
        best = change;
        move = [s, -1];
      }
    }
    if (move) {
      apply(...move);
      continue;
    }
    // Swaps: the most promising sellers to open, against every open one.
    addGain.sort((a, b) => (a[1] === b[1] ? a[0] - b[0] : a[1] < b[1] ? -1 : 1));
    const openNow = usefulSellers.filter((s) => open[s] === 1);
    for (const [plus] of addGain.slice(0, 25)) {
      for (const minus of openNow) {
        const change = delta(plus, minus);
        if (change < best) {
          best = change;
          move = [plus, minus];
        }
      }
      if (move || performance.now() > deadline) break;
    }
    if (!move) break;
    apply(...move);
  }
  return open;
}
