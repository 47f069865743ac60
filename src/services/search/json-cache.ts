import { toJsonBytes } from '../../json-bytes';
import { JsonStore } from './json-store';

/** A key being read for the first time (or again after it was forgotten): lookups of it await this load. */
interface Pending {
  loading: Promise<Array<Buffer | null>>;
  /** Where the key is in the load's keys. */
  at: number;
}

/**
 * Serialized views by key, each kept until it changes (`forget`, from the database's change
 * notifications) or for at most `ttlMs()`. Discover keeps item views by URN in one (the working
 * set of bulk lookup, catalog search and listing hits) and seller summaries by user id in
 * another. A lookup takes what it finds here and loads everything else with ONE call to `load`
 * (one database round trip), so any mix of keys benefits, not only repeated identical requests.
 *
 * - A change forgets the key at once, including a load of it still in flight: that load still
 *   answers the lookups that started before the change was heard, and is not kept.
 * - Values are kept as JSON bytes (`toJsonBytes`) in a `JsonStore`, laid out so that a hit costs
 *   few cache misses: serializing and encoding them is the cost a hit saves.
 * - An expired value is still answered while a single refresh of it runs (in the same batch as
 *   the lookup's missing keys), so expiry never makes a burst of lookups wait: an answer is at
 *   most `ttlMs` plus one query old. A failed refresh drops the entry, so the next lookup
 *   waits for the database rather than serving an ever older value.
 * - Keys being loaded for a concurrent lookup are awaited, not loaded twice; a failed load is
 *   forgotten at once so the next lookup retries it.
 */
export class JsonCache<V> {
  private readonly store = new JsonStore();
  /** Keys being loaded that the store does not hold (a refresh keeps its record in the store, marked). */
  private readonly pending = new Map<string, Pending>();

  constructor(
    /** The values of the keys given; a key without one is absent from the map. */
    private readonly load: (keys: string[]) => Promise<Map<string, V>>,
    /** How long an entry stored now may live; read at each store (it depends on whether changes are heard). 0: no cache. */
    private readonly ttlMs: () => number,
    /** The memory budget: entries are evicted while the store's bytes exceed it. */
    private readonly maxBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Each key's value as JSON bytes (`toJsonBytes`), or null for a key without one, in the order given. */
  async getMany(keys: string[]): Promise<Array<Buffer | null>> {
    if (this.ttlMs() <= 0) {
      const found = await this.load(keys);
      return keys.map((key) => toJsonOrNull(found.get(key)));
    }
    const now = this.now();
    const { store } = this;
    // Values are taken before anything is stored: storing may evict or move what this lookup uses
    // (a value already taken keeps its bytes).
    const answer: Array<Buffer | null | Pending> = new Array(keys.length);
    const toLoad: string[] = [];
    let waits = false;
    const records = new Int32Array(keys.length);
    store.findMany(keys, records);
    for (let n = 0; n < keys.length; n += 1) {
      const key = keys[n]!;
      const record = records[n]!;
      if (record >= 0) {
        store.used(record);
        if (store.expires(record) <= now && store.startRefresh(record)) toLoad.push(key);
        answer[n] = store.value(record);
        continue;
      }
      let pending = this.pending.get(key);
      if (!pending) {
        pending = { loading: undefined!, at: toLoad.length };
        this.pending.set(key, pending);
        toLoad.push(key);
      }
      answer[n] = pending;
      waits = true;
    }
    if (toLoad.length > 0) this.loadBatch(toLoad);
    if (!waits) return answer as Array<Buffer | null>;
    return Promise.all(answer.map((a) => (a === null || a instanceof Uint8Array ? a : a.loading.then((values) => values[a.at]!))));
  }

  /**
   * Loads `keys` in one call: new keys have a `Pending` (without its promise yet), refreshed ones a
   * record marked refreshing. Once in, each value is stored unless its key was forgotten meanwhile.
   */
  private loadBatch(keys: string[]): void {
    const loading = this.load(keys).then((found) => keys.map((key) => toJsonOrNull(found.get(key))));
    const pendings = keys.map((key) => {
      const pending = this.pending.get(key);
      if (pending && pending.loading === undefined) pending.loading = loading;
      return pending;
    });
    loading.then(
      (values) => this.settle(keys, pendings, values),
      () =>
        keys.forEach((key, n) => {
          if (this.stillLoading(key, pendings[n])) this.drop(key);
        }),
    );
  }

  /** Whether the load that made `pending` (undefined: a refresh) still stands for `key`: it was not forgotten meanwhile. */
  private stillLoading(key: string, pending: Pending | undefined): boolean {
    if (pending) return this.pending.get(key) === pending;
    const record = this.store.find(key);
    return record >= 0 && this.store.isRefreshing(record);
  }

  private settle(keys: string[], pendings: Array<Pending | undefined>, values: Array<Buffer | null>): void {
    // The newest entry, whose arrival made room necessary, is spared by eviction.
    let newest = -1;
    keys.forEach((key, n) => {
      if (!this.stillLoading(key, pendings[n])) return;
      this.pending.delete(key);
      // A refreshed entry counts its time from when its value is in.
      newest = this.store.put(key, values[n]!, this.now() + this.ttlMs());
    });
    while (this.store.bytes > this.maxBytes && this.store.size > 1 && this.store.evictOne(newest));
  }

  private drop(key: string): void {
    this.pending.delete(key);
    this.store.delete(key);
  }

  /** These keys changed: their next lookup reads the database. */
  forget(keys: string[]): void {
    for (const key of keys) this.drop(key);
  }

  /** Changes may have gone unheard: every key is read again. */
  clear(): void {
    this.pending.clear();
    this.store.clear();
  }

  /** What the budget counts, and how many allocations hold it (for benchmarks that weigh the cache). */
  weight(): { bytes: number; segments: number } {
    return { bytes: this.store.bytes, segments: this.store.segmentCount };
  }
}

const toJsonOrNull = (value: unknown) => (value === undefined ? null : toJsonBytes(value));
