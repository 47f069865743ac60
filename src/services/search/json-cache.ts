import { KEPT_BUFFER_NATIVE_BYTES, toKeptJsonBytes } from '../../json-bytes';
import { evictSecondChance } from '../second-chance';

/**
 * Every field is set when the entry is made, so all entries share one shape with the fields
 * inside the object: a field added later goes to a separate property array, one more object per
 * entry and one more memory access for each item a lookup answers.
 */
interface Entry {
  expires: number;
  /**
   * The value being loaded: JSON bytes (`toJsonBytes`), or null when the key has none (a URN not
   * in the catalog). Dropped once the value is in, so a kept entry holds no promise.
   */
  json: Promise<Buffer | null> | undefined;
  /** `json` once settled: a lookup whose entries are all settled answers without a promise each. */
  value: Buffer | null | undefined;
  /** An expired entry being re-read: it keeps answering until the new value is in. */
  refreshing: boolean;
  /** Answered since eviction last passed it (see `evictSecondChance`). */
  used: boolean;
  /** What it counts against `maxBytes`, once its value is in (see `ENTRY_OVERHEAD_BYTES`). */
  bytes: number;
}

/**
 * What an entry costs beyond its JSON bytes: on the heap, the key string, the map slot, the entry,
 * its promise and the Buffer object (about 300 bytes); outside it, malloc's records of the Buffer
 * (`bench/catalog/cache-weights.ts` weighs both).
 */
export const ENTRY_OVERHEAD_BYTES = 300 + KEPT_BUFFER_NATIVE_BYTES;

/**
 * Serialized views by key, each kept until it changes (`forget`, from the database's change
 * notifications) or for at most `ttlMs()`. Discover keeps item views by URN in one (the working
 * set of bulk lookup, catalog search and listing hits) and seller summaries by user id in
 * another. A lookup takes what it finds here and loads everything else with ONE call to `load`
 * (one database round trip), so any mix of keys benefits, not only repeated identical requests.
 *
 * - A change forgets the key at once, including a load of it still in flight: that load still
 *   answers the lookups that started before the change was heard, and is not kept.
 * - Values are kept as JSON bytes (`toJsonBytes`): serializing and encoding them, not reading
 *   the map, is the cost of a hit.
 * - An expired value is still answered while a single refresh of it runs (in the same batch as
 *   the lookup's missing keys), so expiry never makes a burst of lookups wait: an answer is at
 *   most `ttlMs` plus one query old. A failed refresh drops the entry, so the next lookup
 *   waits for the database rather than serving an ever older value.
 * - Keys being loaded for a concurrent lookup are awaited, not loaded twice; a failed load is
 *   forgotten at once so the next lookup retries it.
 */
export class JsonCache<V> {
  private readonly entries = new Map<string, Entry>();
  /** The sum of the kept entries' `bytes`. */
  private bytes = 0;

  constructor(
    /** The values of the keys given; a key without one is absent from the map. */
    private readonly load: (keys: string[]) => Promise<Map<string, V>>,
    /** How long an entry stored now may live; read at each store (it depends on whether changes are heard). 0: no cache. */
    private readonly ttlMs: () => number,
    /** The memory budget: entries are evicted while their bytes exceed it. */
    private readonly maxBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Each key's value as JSON bytes (`toJsonBytes`), or null for a key without one, in the order given. */
  async getMany(keys: string[]): Promise<Array<Buffer | null>> {
    if (this.ttlMs() <= 0) {
      const found = await this.load(keys);
      return keys.map((key) => serialize(found.get(key)));
    }
    const now = this.now();
    // Entries are taken before anything is stored: storing may evict entries this lookup uses.
    const entries = keys.map((key) => this.entries.get(key));
    const toLoad = new Set<string>();
    entries.forEach((entry, n) => {
      if (entry) entry.used = true;
      if (entry && (entry.expires > now || entry.refreshing)) return;
      if (entry) entry.refreshing = true;
      toLoad.add(keys[n]!);
    });
    const loaded = toLoad.size > 0 ? this.loadBatch([...toLoad]) : undefined;
    const answer = entries.map((entry, n) => entry ?? loaded!.get(keys[n]!)!);
    if (answer.every((e) => e.value !== undefined)) return answer.map((e) => e.value!);
    return Promise.all(answer.map((e) => (e.value !== undefined ? e.value : e.json!)));
  }

  /**
   * Loads `keys` in one call. Keys without an entry get one at once (so concurrent lookups
   * await this load), returned by key; an expired entry is replaced once its new value is in.
   */
  private loadBatch(keys: string[]): Map<string, Entry> {
    const batch = this.load(keys);
    const created = new Map<string, Entry>();
    for (const key of keys) {
      const json = batch.then((found) => serialize(found.get(key)));
      const entry: Entry = { expires: this.now() + this.ttlMs(), json, value: undefined, refreshing: false, used: false, bytes: 0 };
      const stale = this.entries.get(key);
      json.then(
        (value) => {
          entry.value = value;
          entry.json = undefined;
          // A refreshed entry counts its time from when its value is in; one forgotten meanwhile stays forgotten.
          if (stale && this.entries.get(key) === stale) this.store(key, { ...entry, expires: this.now() + this.ttlMs() });
          else if (this.entries.get(key) === entry) this.count(entry);
        },
        () => {
          const current = this.entries.get(key);
          if (current === stale || current === entry) this.delete(key);
        },
      );
      if (!stale) {
        this.store(key, entry);
        created.set(key, entry);
      }
    }
    return created;
  }

  /** These keys changed: their next lookup reads the database. */
  forget(keys: string[]): void {
    for (const key of keys) this.delete(key);
  }

  /** Changes may have gone unheard: every key is read again. */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  /** Puts `entry` in place of what `key` had, at the back of the eviction order. */
  private store(key: string, entry: Entry): void {
    this.delete(key);
    this.entries.set(key, entry);
    if (entry.value !== undefined) this.count(entry);
  }

  private delete(key: string): void {
    this.bytes -= this.entries.get(key)?.bytes ?? 0;
    this.entries.delete(key);
  }

  /** A kept entry's value is in: it counts against the budget from now on. */
  private count(entry: Entry): void {
    entry.bytes = ENTRY_OVERHEAD_BYTES + (entry.value?.length ?? 0);
    this.bytes += entry.bytes;
    while (this.bytes > this.maxBytes && this.entries.size > 1) {
      // The entry whose arrival made room necessary is spared.
      this.bytes -= evictSecondChance(this.entries, entry)?.bytes ?? 0;
    }
  }
}

const serialize = (value: unknown) => (value === undefined ? null : toKeptJsonBytes(value));
