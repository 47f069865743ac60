import { performance } from 'node:perf_hooks';
import type { PreparedBasket } from './prepare';

/**
 * Local search over which sellers are "open" (used), the classic add / drop / swap neighbourhood
 * of facility location. The solver's own heuristics find good baskets slowly when many small
 * sellers overlap (a set-cover structure: on 200 lines and 400 sellers, HiGHS in WebAssembly
 * spent seconds before its first good basket); this finds one in milliseconds, and the solver
 * starts from it, so its time goes to the bound and to what local moves cannot see.
 *
 * Each line keeps taking exactly `targets[l]` units (the fill chosen in phase 1) from its cheapest
 * open listings, every line on its own, which makes a move cheap to cost. So that lines sharing a
 * listing cannot both count its stock, each line may take from a shared listing what the start
 * basket `startUnits` took for it plus an equal share of what the start left. Every open set
 * found is then truly feasible, and the caller's exact flow over it, which may move shared stock
 * between lines, costs no more. Returns the best open set found; stops at `deadline`
 * (performance.now() time).
 */
export function improveSellers(
  prep: PreparedBasket,
  targets: Int32Array,
  startUnits: Int32Array,
  maxSellers: number | undefined,
  deadline: number,
): Uint8Array {
  const {
    groups,
    groupsOfSeller,
    usefulSellers,
    lineStart,
    pairLine,
    pairListing,
    pairUpper,
    pairsOfListing,
    sellerOf,
    price,
    delivery,
    available,
  } = prep;
  const open = new Uint8Array(delivery.length);
  for (let p = 0; p < startUnits.length; p += 1) if (startUnits[p]! > 0) open[sellerOf[pairListing[p]!]!] = 1;
  let openCount = open.reduce((a, b) => a + b, 0);
  const limit = maxSellers ?? Infinity;

  // What each pair may take here: shared stock split as described above.
  const take = Int32Array.from(pairUpper);
  pairsOfListing.forEach((pairs, j) => {
    const sharing = pairs.filter((p) => targets[pairLine[p]!]! > 0);
    if (sharing.length < 2) return;
    const left = available[j]! - sharing.reduce((sum, p) => sum + startUnits[p]!, 0);
    for (const p of sharing) take[p] = Math.min(pairUpper[p]!, startUnits[p]! + Math.floor(left / sharing.length));
  });

  // The move being costed: `plus` counts as open, `minus` as closed.
  let plus = -1;
  let minus = -1;
  // reach[l]: the last pair of line l that its costing looked at. A seller whose listings on the
  // line all come later (they are sorted by price) cannot change that line's cost.
  const reach = new Int32Array(targets.length);
  const lineCost = (l: number, keepReach: boolean): number => {
    let need = targets[l]!;
    let cost = 0;
    let p = lineStart[l]!;
    for (; need > 0 && p < lineStart[l + 1]!; p += 1) {
      const s = sellerOf[pairListing[p]!]!;
      if (s !== plus && (open[s] === 0 || s === minus)) continue;
      const n = Math.min(need, take[p]!);
      cost += n * price[pairListing[p]!]!;
      need -= n;
    }
    if (keepReach) reach[l] = p - 1;
    return need > 0 ? Infinity : cost;
  };
  const current = Float64Array.from(targets, (_, l) => lineCost(l, true));
  const stamp = new Int32Array(targets.length);
  let round = 0;
  /** Lines whose cost the move can change: the seller lists something on them within reach. */
  const affected = (opened: number, closed: number): number[] => {
    round += 1;
    const found: number[] = [];
    for (const seller of [opened, closed]) {
      if (seller < 0) continue;
      for (const g of groupsOfSeller[seller]!) {
        const { line, pairs } = groups[g]!;
        if (stamp[line] === round || targets[line] === 0 || pairs[0]! > reach[line]!) continue;
        stamp[line] = round;
        found.push(line);
      }
    }
    return found;
  };

  /** Change in total cost if `opened` opens and `closed` closes (either may be −1). */
  const delta = (opened: number, closed: number): number => {
    plus = opened;
    minus = closed;
    let change = (opened >= 0 ? delivery[opened]! : 0) - (closed >= 0 ? delivery[closed]! : 0);
    for (const l of affected(opened, closed)) {
      change += lineCost(l, false) - current[l]!;
      if (change === Infinity) break;
    }
    plus = -1;
    minus = -1;
    return change;
  };
  const apply = (opened: number, closed: number) => {
    const changed = affected(opened, closed);
    if (opened >= 0) open[opened] = 1;
    if (closed >= 0) open[closed] = 0;
    openCount += (opened >= 0 ? 1 : 0) - (closed >= 0 ? 1 : 0);
    for (const l of changed) current[l] = lineCost(l, true);
  };

  /** Best-improvement descent: add or drop while one helps, else the best improving swap. */
  const descend = () => {
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
      for (const [opened] of addGain.slice(0, 25)) {
        for (const closed of openNow) {
          const change = delta(opened, closed);
          if (change < best) {
            best = change;
            move = [opened, closed];
          }
        }
        if (move || performance.now() > deadline) break;
      }
      if (!move) break;
      apply(...move);
    }
  };
  const total = () => {
    let sum = 0;
    for (let l = 0; l < targets.length; l += 1) sum += current[l]!;
    for (const s of usefulSellers) if (open[s] === 1) sum += delivery[s]!;
    return sum;
  };
  const restore = (sellers: Uint8Array) => {
    open.set(sellers);
    openCount = open.reduce((a, b) => a + b, 0);
    for (let l = 0; l < targets.length; l += 1) current[l] = lineCost(l, true);
  };

  descend();
  const bestOpen = Uint8Array.from(open);
  let bestCost = total();
  // Iterated local search, while no seller limit binds: open a few random sellers and descend
  // again, keeping the result only if it is cheaper. It escapes the local optima that single
  // swaps cannot leave, which set-cover baskets are full of; it stops after a few failures in a
  // row, so easy baskets spend next to nothing here.
  if (maxSellers === undefined) {
    const random = mulberry32(0x5eed);
    const closed = () => usefulSellers.filter((s) => open[s] === 0);
    for (let failures = 0; failures < ILS_FAILURES && performance.now() < deadline;) {
      const candidates = closed();
      if (candidates.length === 0) break;
      for (let k = 0; k < ILS_KICK && candidates.length > 0; k += 1) {
        const [s] = candidates.splice(Math.floor(random() * candidates.length), 1);
        apply(s!, -1);
      }
      descend();
      const cost = total();
      if (cost < bestCost) {
        bestCost = cost;
        bestOpen.set(open);
        failures = 0;
      } else {
        failures += 1;
        restore(bestOpen);
      }
    }
  }
  return bestOpen;
}

/** Kicks in a row that found nothing cheaper before the iterated search stops. */
const ILS_FAILURES = 10;
/** Sellers opened at random by one kick. */
const ILS_KICK = 3;

/** A small seeded generator (mulberry32), so the same basket always gets the same answer. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
