import { evictSecondChance } from '../second-chance';

interface Entry<T> {
  version: string;
  expires: number;
  value: Promise<T>;
  refreshing: boolean;
  /** Answered since eviction last passed it (see `evictSecondChance`). */
  used?: boolean;
}

/**
 * A small per-process cache of search answers, keyed by request and by a version (an
 * increasing integer, as text). Seller search keys on the seller's listings version, so any
 * listing write by the seller makes its entries unreachable at once, in every process; Discover
 * listing search passes a constant version and relies on expiry alone. Changes that bump no
 * version show within `ttlMs` plus one computation: an expired entry of the current version is
 * still answered while a single refresh runs, so expiry never makes a burst of searches wait,
 * and a failed refresh drops it. Identical concurrent misses share one computation.
 */
export class SearchCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    /** How long an entry lives: fixed, or read at each store. 0: no cache. */
    private readonly ttlMs: number | (() => number),
    private readonly maxEntries = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  async get(key: string, version: string, compute: () => Promise<T>): Promise<T> {
    if (this.ttl() <= 0) return compute();
    const hit = this.entries.get(key);
    if (hit && hit.version === version) {
      hit.used = true;
      if (hit.expires <= this.now() && !hit.refreshing) {
        hit.refreshing = true;
        const fresh = compute();
        // Swapped in only once computed. A failed refresh drops the entry, so the next request
        // waits for a computation instead of being served an ever older answer.
        fresh.then(
          // Unless the entry was forgotten meanwhile: a change may have landed after this read.
          () => this.entries.get(key) === hit && this.store(key, version, fresh),
          () => {
            if (this.entries.get(key) === hit) this.entries.delete(key);
          },
        );
      }
      return hit.value;
    }
    const value = compute();
    this.store(key, version, value);
    // A failed computation is not remembered.
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    return value;
  }

  private ttl(): number {
    return typeof this.ttlMs === 'function' ? this.ttlMs() : this.ttlMs;
  }

  /** Forgets `key`, including a computation of it in flight (its callers still get it). */
  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Forgets everything. */
  clear(): void {
    this.entries.clear();
  }

  private store(key: string, version: string, value: Promise<T>): void {
    const current = this.entries.get(key);
    // A computation finishing after one for a newer version was stored must not put the old one back.
    if (current && BigInt(current.version) > BigInt(version)) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) evictSecondChance(this.entries);
    this.entries.set(key, { version, expires: this.now() + this.ttl(), value, refreshing: false });
  }
}
