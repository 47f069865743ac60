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
 * only sellers whose `sellerAllowed` flag is set. Lines that share no listing with another line
 * are independent: each simply takes its cheapest listings in order (the common case, linear
 * time). Lines tied together by shared listings are solved as one min-cost flow.
 */
export function cheapestItems(prep: PreparedBasket, lineCap: Int32Array, sellerAllowed?: Uint8Array): ItemFlow {
  const { lineStart, pairListing, pairUpper, pairLine, sellerOf, price, available, pairsOfListing } = prep;
  const lineCount = lineCap.length;
  const units = new Int32Array(pairListing.length);
  const marginals: { cost: number; units: number }[] = [];
  const allowed = (p: number) =>
    lineCap[pairLine[p]!]! > 0 && (sellerAllowed === undefined || sellerAllowed[sellerOf[pairListing[p]!]!] === 1);

  // Components of lines joined by shared listings (union-find).
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
  const members = new Map<number, number[]>();
  for (let l = 0; l < lineCount; l += 1) {
    if (lineCap[l]! <= 0) continue;
    const root = find(l);
    const list = members.get(root);
    if (list) list.push(l);
    else members.set(root, [l]);
  }

  let filled = 0;
  let itemsCost = 0;
  for (const lines of members.values()) {
    if (lines.length === 1) {
      const l = lines[0]!;
      let want = lineCap[l]!;
      for (let p = lineStart[l]!; p < lineStart[l + 1]! && want > 0; p += 1) {
        if (!allowed(p)) continue;
        const take = Math.min(want, pairUpper[p]!, available[pairListing[p]!]!);
        if (take <= 0) continue;
        units[p] = take;
        want -= take;
        filled += take;
        itemsCost += take * price[pairListing[p]!]!;
        marginals.push({ cost: price[pairListing[p]!]!, units: take });
      }
      continue;
    }
    // Nodes: 0 source, 1 sink, then the component's lines, then its listings.
    const node = new Map<number, number>();
    const listingNode = new Map<number, number>();
    let next = 2;
    for (const l of lines) node.set(l, next++);
    for (const l of lines) {
      for (let p = lineStart[l]!; p < lineStart[l + 1]!; p += 1) {
        if (allowed(p) && !listingNode.has(pairListing[p]!)) listingNode.set(pairListing[p]!, next++);
      }
    }
    const flow = new MinCostFlow(next);
    const pairEdges: [pair: number, edge: number][] = [];
    for (const l of lines) {
      flow.addEdge(0, node.get(l)!, lineCap[l]!, 0);
      for (let p = lineStart[l]!; p < lineStart[l + 1]!; p += 1) {
        if (!allowed(p)) continue;
        pairEdges.push([p, flow.addEdge(node.get(l)!, listingNode.get(pairListing[p]!)!, pairUpper[p]!, price[pairListing[p]!]!)]);
      }
    }
    for (const [j, v] of listingNode) flow.addEdge(v, 1, available[j]!, 0);
    const result = flow.run(0, 1, (n, cost) => marginals.push({ cost, units: n }));
    filled += result.flow;
    itemsCost += result.cost;
    for (const [p, e] of pairEdges) units[p] = flow.flowOn(e);
  }
  return { units, filled, itemsCost, marginals };
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
