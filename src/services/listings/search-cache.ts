import { evictSecondChance } from '../second-chance';

interface Entry<T> {
  version: string;
  storedAt: number;
  expires: number;
  value: Promise<T>;
  refreshing: boolean;
  /** Set by `expire` during a refresh, which may have read before the change: its result expires by this age too. */
  expireRefreshAfterMs?: number;
  /** Answered since eviction last passed it (see `evictSecondChance`). */
  used?: boolean;
  /** What it counts against a byte bound, once its value is in; 0 until then. */
  bytes: number;
}

/**
 * How much a cache keeps: a number of entries, or bytes as `sizeOf` estimates each entry (its
 * value and key; an entry counts from when its value is in). Past the bound, entries not answered
 * since eviction last passed them go first (`evictSecondChance`).
 */
export type CacheBound<T> = { entries: number } | { bytes: number; sizeOf: (value: T, key: string) => number };

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
  /** The sum of the entries' `bytes`. */
  private bytes = 0;

  constructor(
    /** How long an entry lives: fixed, or read at each store. 0: no cache. */
    private readonly ttlMs: number | (() => number),
    private readonly bound: CacheBound<T> = { entries: 1000 },
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
          () => this.entries.get(key) === hit && this.store(key, version, fresh, hit.expireRefreshAfterMs),
          () => {
            if (this.entries.get(key) === hit) this.delete(key);
          },
        );
      }
      return hit.value;
    }
    const value = compute();
    this.store(key, version, value);
    // A failed computation is not remembered.
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.delete(key);
    });
    return value;
  }

  private ttl(): number {
    return typeof this.ttlMs === 'function' ? this.ttlMs() : this.ttlMs;
  }

  /**
   * Marks `key` changed without forgetting it: its entry is refreshed (and answered meanwhile)
   * once it is `minAgeMs` old, which bounds how often changes make it recompute. A refresh
   * already running may have read before the change, so what it stores expires the same way.
   */
  expire(key: string, minAgeMs: number): void {
    const hit = this.entries.get(key);
    if (!hit) return;
    hit.expires = Math.min(hit.expires, hit.storedAt + minAgeMs);
    if (hit.refreshing) hit.expireRefreshAfterMs = Math.min(hit.expireRefreshAfterMs ?? minAgeMs, minAgeMs);
  }

  /** Every key and value held (values may still be computing). */
  held(): Array<[key: string, value: Promise<T>]> {
    return [...this.entries].map(([key, entry]) => [key, entry.value]);
  }

  /** Forgets `key`, including a computation of it in flight (its callers still get it). */
  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  /** Forgets everything. */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  private store(key: string, version: string, value: Promise<T>, expireAfterMs?: number): void {
    const current = this.entries.get(key);
    // A computation finishing after one for a newer version was stored must not put the old one back.
    if (current && BigInt(current.version) > BigInt(version)) return;
    this.delete(key);
    if ('entries' in this.bound && this.entries.size >= this.bound.entries) evictSecondChance(this.entries);
    const now = this.now();
    const entry: Entry<T> = {
      version,
      storedAt: now,
      expires: now + Math.min(this.ttl(), expireAfterMs ?? Infinity),
      value,
      refreshing: false,
      bytes: 0,
    };
    this.entries.set(key, entry);
    if ('bytes' in this.bound) {
      const { bytes: maxBytes, sizeOf } = this.bound;
      // Weighed once in; a value that fails is deleted by `get`, and one forgotten meanwhile never counts.
      value.then(
        (v) => {
          if (this.entries.get(key) !== entry) return;
          entry.bytes = sizeOf(v, key);
          this.bytes += entry.bytes;
          // The entry whose arrival made room necessary is spared.
          while (this.bytes > maxBytes && this.entries.size > 1) this.bytes -= evictSecondChance(this.entries, entry)?.bytes ?? 0;
        },
        () => undefined,
      );
    }
  }
}
