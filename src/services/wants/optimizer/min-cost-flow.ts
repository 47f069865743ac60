/**
 * Min-cost flow by successive shortest paths (Dijkstra on reduced costs with node potentials).
 * Used on the lines × listings network, where it gives at once the most units that stock allows
 * and the cheapest items for them, without the solver: the answer of the first phase when no
 * seller limit applies, the start basket of the MIP, and the naive basket it is compared with.
 * Edge costs must be non-negative (they are prices).
 */
export class MinCostFlow {
  private readonly head: Int32Array;
  private readonly to: number[] = [];
  private readonly next: number[] = [];
  private readonly cap: number[] = [];
  private readonly cost: number[] = [];

  constructor(private readonly nodes: number) {
    this.head = new Int32Array(nodes).fill(-1);
  }

  /** Adds an edge and its residual twin; returns the edge's index for `flowOn`. */
  addEdge(from: number, to: number, capacity: number, cost: number): number {
    const e = this.to.length;
    this.to.push(to, from);
    this.cap.push(capacity, 0);
    this.cost.push(cost, -cost);
    this.next.push(this.head[from]!, this.head[to]!);
    this.head[from] = e;
    this.head[to] = e + 1;
    return e;
  }

  flowOn(edge: number): number {
    return this.cap[edge ^ 1]!;
  }

  /**
   * Pushes as much flow as possible from `source` to `sink`, cheapest paths first. `onUnits` hears
   * each augmentation: successive shortest paths never get cheaper, so these are the marginal unit
   * costs in non-decreasing order (the cheapest k units of flow cost the first k of them).
   */
  run(source: number, sink: number, onUnits?: (units: number, unitCost: number) => void): { flow: number; cost: number } {
    const n = this.nodes;
    const potential = new Float64Array(n);
    const dist = new Float64Array(n);
    const viaEdge = new Int32Array(n);
    let flow = 0;
    let cost = 0;
    for (;;) {
      dist.fill(Infinity);
      viaEdge.fill(-1);
      dist[source] = 0;
      const heap = new MinHeap();
      heap.push(0, source);
      while (heap.size > 0) {
        const [d, u] = heap.pop();
        if (d > dist[u]!) continue;
        for (let e = this.head[u]!; e !== -1; e = this.next[e]!) {
          if (this.cap[e]! <= 0) continue;
          const v = this.to[e]!;
          const nd = d + this.cost[e]! + potential[u]! - potential[v]!;
          if (nd < dist[v]!) {
            dist[v] = nd;
            viaEdge[v] = e;
            heap.push(nd, v);
          }
        }
      }
      if (dist[sink] === Infinity) break;
      // Nodes unreachable now stay unreachable (new residual edges only join reachable nodes), so
      // their potentials never matter again.
      for (let v = 0; v < n; v += 1) if (dist[v] !== Infinity) potential[v] = potential[v]! + dist[v]!;
      let units = Infinity;
      for (let v = sink; v !== source; v = this.to[viaEdge[v]! ^ 1]!) units = Math.min(units, this.cap[viaEdge[v]!]!);
      for (let v = sink; v !== source; v = this.to[viaEdge[v]! ^ 1]!) {
        this.cap[viaEdge[v]!]! -= units;
        this.cap[viaEdge[v]! ^ 1]! += units;
      }
      const unitCost = potential[sink]! - potential[source]!;
      flow += units;
      cost += units * unitCost;
      onUnits?.(units, unitCost);
    }
    return { flow, cost };
  }
}

/** Binary min-heap of (key, node) with lazy deletion by the caller. */
class MinHeap {
  private readonly keys: number[] = [];
  private readonly values: number[] = [];

  get size(): number {
    return this.keys.length;
  }

  push(key: number, value: number): void {
    const keys = this.keys;
    const values = this.values;
    let i = keys.length;
    keys.push(key);
    values.push(value);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (keys[parent]! <= key) break;
      keys[i] = keys[parent]!;
      values[i] = values[parent]!;
      i = parent;
    }
    keys[i] = key;
    values[i] = value;
  }

  pop(): [number, number] {
    const keys = this.keys;
    const values = this.values;
    const top: [number, number] = [keys[0]!, values[0]!];
    const lastKey = keys.pop()!;
    const lastValue = values.pop()!;
    const n = keys.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= n) break;
        const right = left + 1;
        const child = right < n && keys[right]! < keys[left]! ? right : left;
        if (keys[child]! >= lastKey) break;
        keys[i] = keys[child]!;
        values[i] = values[child]!;
        i = child;
      }
      keys[i] = lastKey;
      values[i] = lastValue;
    }
    return top;
  }
}
