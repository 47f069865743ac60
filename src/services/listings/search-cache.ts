/**
 * A small per-process cache of seller search results (facet counts, pages of ids): "the search
 * index" of the spec's seller search. An entry is keyed by seller, search request and the
 * seller's stats version, so any listing write by the seller (create, update, delete, import)
 * makes it unreachable at once, in every process. Stock moved by checkouts does not bump the
 * version; such changes (Availability, Quantity) show within `ttlMs`. Concurrent identical
 * misses share one computation, so a burst of the same search costs one query.
 */
export class SearchCache<T> {
  private readonly entries = new Map<string, { version: string; expires: number; value: Promise<T> }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 1000,
  ) {}

  async get(key: string, version: string, compute: () => Promise<T>): Promise<T> {
    if (this.ttlMs <= 0) return compute();
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.version === version && hit.expires > now) return hit.value;
    const value = compute();
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { version, expires: now + this.ttlMs, value });
    // A failed computation is not remembered.
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    return value;
  }
}
