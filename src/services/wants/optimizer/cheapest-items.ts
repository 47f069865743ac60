import { MinCostFlow } from './min-cost-flow';
import type { PreparedBasket } from './prepare';

/** Units per pair that fill as much as stock allows at the lowest item cost, delivery ignored. */
export interface ItemFlow {
  readonly units: Int32Array;
  readonly filled: number;
  readonly itemsCost: number;
  /** Marginal unit costs: the cheapest k units of any basket cost at least the k cheapest of these. */
  readonly marginals: readonly { readonly cost: number; readonly units: number }[];
}

/**
 * Most units, then cheapest items, with at most `lineCap[l]` units on line l and, when given,
 * only sellers whose `sellerAllowed` flag is set.
 */
export function cheapestItems(prep: PreparedBasket, lineCap: Int32Array, sellerAllowed?: Uint8Array): ItemFlow {
  const { pairListing, pairLine, sellerOf } = prep;
  const allowed = (p: number) =>
    lineCap[pairLine[p]!]! > 0 && (sellerAllowed === undefined || sellerAllowed[sellerOf[pairListing[p]!]!] === 1);
  const units = new Int32Array(pairListing.length);
  const marginals: { cost: number; units: number }[] = [];
  let filled = 0;
  let itemsCost = 0;
  for (const lines of lineComponents(prep, lineCap, allowed).members) {
    const result = fillComponent(prep, lines, lineCap, allowed, units, (n, cost) => marginals.push({ cost, units: n }));
    filled += result.filled;
    itemsCost += result.cost;
  }
  return { units, filled, itemsCost, marginals };
}

/**
 * Lines tied together by listings they share (through pairs `allowed` admits), as groups of
 * line indices: the parts of the basket whose units can be chosen independently of each other.
 * Lines with no capacity are left out.
 */
export function lineComponents(
  prep: PreparedBasket,
  lineCap: Int32Array,
  allowed: (pair: number) => boolean,
): { of: Int32Array; members: number[][] } {
  const { pairLine, pairsOfListing } = prep;
  const lineCount = lineCap.length;
  const parent = Int32Array.from({ length: lineCount }, (_, l) => l);
  const find = (l: number): number => {
    while (parent[l] !== l) {
      parent[l] = parent[parent[l]!]!;
      l = parent[l]!;
    }
    return l;
  };
  for (const pairs of pairsOfListing) {
    if (pairs.length < 2) continue;
    let first = -1;
    for (const p of pairs) {
      if (!allowed(p)) continue;
      if (first === -1) first = find(pairLine[p]!);
      else parent[find(pairLine[p]!)] = first;
    }
  }
  const of = new Int32Array(lineCount).fill(-1);
  const members: number[][] = [];
  const index = new Map<number, number>();
  for (let l = 0; l < lineCount; l += 1) {
    if (lineCap[l]! <= 0) continue;
    const root = find(l);
    let c = index.get(root);
    if (c === undefined) {
      c = members.length;
      index.set(root, c);
      members.push([]);
    }
    members[c]!.push(l);
    of[l] = c;
  }
  return { of, members };
}

/**
 * Most units, then cheapest items, for one component. A line alone simply takes its cheapest
 * listings in order (the common case, linear time: its listings fit no other line here). Lines
 * sharing listings are solved together as a min-cost flow. Writes units into `units` when given
 * and reports each batch of units with its marginal cost to `onUnits`.
 */
export function fillComponent(
  prep: PreparedBasket,
  lines: readonly number[],
  lineCap: Int32Array,
  allowed: (pair: number) => boolean,
  units?: Int32Array,
  onUnits?: (units: number, unitCost: number) => void,
): { filled: number; cost: number } {
  const { lineStart, pairListing, pairUpper, price, available } = prep;
  if (lines.length === 1) {
    const l = lines[0]!;
    let want = lineCap[l]!;
    let cost = 0;
    for (let p = lineStart[l]!; p < lineStart[l + 1]! && want > 0; p += 1) {
      if (!allowed(p)) continue;
      const take = Math.min(want, pairUpper[p]!, available[pairListing[p]!]!);
      if (take <= 0) continue;
      if (units) units[p] = take;
      want -= take;
      cost += take * price[pairListing[p]!]!;
      onUnits?.(take, price[pairListing[p]!]!);
    }
    return { filled: lineCap[l]! - want, cost };
  }
  // Each line needs only its cheapest listings up to the component's whole demand in stock: if
  // it used a dearer one, one of those would have stock to spare (all lines together take less
  // than they hold), and moving the unit there costs no more. This keeps the flow small when a
  // popular card's lines share hundreds of listings.
  const demand = lines.reduce((sum, l) => sum + lineCap[l]!, 0);
  const usable: number[][] = lines.map((l) => {
    const pairs: number[] = [];
    let stock = 0;
    for (let p = lineStart[l]!; p < lineStart[l + 1]! && stock < demand; p += 1) {
      if (!allowed(p)) continue;
      pairs.push(p);
      stock += available[pairListing[p]!]!;
    }
    return pairs;
  });
  // Nodes: 0 source, 1 sink, then the component's lines, then its listings.
  const listingNode = new Map<number, number>();
  let next = 2 + lines.length;
  for (const pairs of usable) for (const p of pairs) if (!listingNode.has(pairListing[p]!)) listingNode.set(pairListing[p]!, next++);
  const flow = new MinCostFlow(next);
  const pairEdges: [pair: number, edge: number][] = [];
  lines.forEach((l, i) => {
    flow.addEdge(0, 2 + i, lineCap[l]!, 0);
    for (const p of usable[i]!)
      pairEdges.push([p, flow.addEdge(2 + i, listingNode.get(pairListing[p]!)!, pairUpper[p]!, price[pairListing[p]!]!)]);
  });
  for (const [j, v] of listingNode) flow.addEdge(v, 1, available[j]!, 0);
  const result = flow.run(0, 1, onUnits);
  if (units) for (const [p, e] of pairEdges) units[p] = flow.flowOn(e);
  return { filled: result.flow, cost: result.cost };
}

/** What the cheapest `count` units cost at least: the sum of the `count` smallest marginal costs. */
export function cheapestUnitsCost(marginals: ItemFlow['marginals'], count: number): number {
  const sorted = [...marginals].sort((a, b) => a.cost - b.cost);
  let left = count;
  let sum = 0;
  for (const m of sorted) {
    if (left <= 0) break;
    const take = Math.min(left, m.units);
    sum += take * m.cost;
    left -= take;
  }
  return sum;
}
