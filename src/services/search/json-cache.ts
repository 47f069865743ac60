import { KEPT_BUFFER_NATIVE_BYTES, toJsonBytes } from '../../json-bytes';
import { evictSecondChance } from '../second-chance';

/**
 * Every field is set when the entry is made, so all entries share one shape with the fields
 * inside the object: a field added later goes to a separate property array, one more object per
 * entry and one more memory access for each item a lookup answers.
 */
interface Entry {
  expires: number;
  /** The load this entry's value comes from; dropped once the value is in, so a kept entry holds no promise. */
  loading: Promise<Loaded> | undefined;
  /** Where this entry's key is in the load's keys. */
  at: number;
  /**
   * JSON bytes (`toJsonBytes`), or null when the key has none (a URN not in the catalog), once the
   * load is in: a lookup whose entries are all settled answers without a promise each.
   */
  value: Buffer | null | undefined;
  /** An expired entry being re-read: it keeps answering until the new value is in. */
  refreshing: boolean;
  /** Answered since eviction last passed it (see `evictSecondChance`). */
  used: boolean;
}

/**
 * The values of one load, kept in ONE allocation (`keepTogether`): a lookup that misses 200 items
 * keeps one Buffer, not 200. Each kept Buffer costs malloc about 180 bytes of records beyond its
 * bytes (`KEPT_BUFFER_NATIVE_BYTES`) and V8 an ArrayBuffer object; and 100k small allocations that
 * live for minutes, scattered among the answers' transient ones, left glibc's heap fragmented
 * (docs/discover.md, "How much is kept"). The price: a value no entry holds any longer stays
 * allocated while others of its batch live, so a batch is copied down to its survivors once half of
 * it is dead, and until then its dead bytes count against the budget.
 */
interface Batch {
  buffer: ArrayBufferLike;
  /** The keys it was loaded for, to find the entries that hold its values. */
  keys: string[];
  /** Its values' bytes; it counts them and malloc's records of its one allocation against the budget. */
  bytes: number;
  /** The bytes of its values that entries in the map hold. */
  held: number;
}

/** A load's values, as JSON bytes kept together. */
interface Loaded {
  values: Array<Buffer | null>;
  batch: Batch | undefined;
}

/**
 * What an entry costs beyond its JSON bytes, on the heap: the key string, the map slot, the entry
 * and its Buffer view (`bench/catalog/cache-weights.ts` weighs it).
 */
export const ENTRY_OVERHEAD_BYTES = 300;

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
 *   the map, is the cost of a hit. The values of one load share one allocation (`Batch`).
 * - An expired value is still answered while a single refresh of it runs (in the same batch as
 *   the lookup's missing keys), so expiry never makes a burst of lookups wait: an answer is at
 *   most `ttlMs` plus one query old. A failed refresh drops the entry, so the next lookup
 *   waits for the database rather than serving an ever older value.
 * - Keys being loaded for a concurrent lookup are awaited, not loaded twice; a failed load is
 *   forgotten at once so the next lookup retries it.
 */
export class JsonCache<V> {
  private readonly entries = new Map<string, Entry>();
  /** The batch each kept allocation is (its ArrayBuffer is the key). */
  private batches = new WeakMap<ArrayBufferLike, Batch>();
  /** What counts against `maxBytes`: `ENTRY_OVERHEAD_BYTES` per entry and the size of every batch an entry holds. */
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
      return keys.map((key) => toJsonOrNull(found.get(key)));
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
    return Promise.all(answer.map((e) => (e.value !== undefined ? e.value : e.loading!.then(({ values }) => values[e.at]!))));
  }

  /**
   * Loads `keys` in one call. Keys without an entry get one at once (so concurrent lookups
   * await this load), returned by key; an expired entry is replaced once its new value is in.
   */
  private loadBatch(keys: string[]): Map<string, Entry> {
    const loading = this.load(keys).then((found) =>
      keepTogether(
        keys,
        keys.map((key) => toJsonOrNull(found.get(key))),
      ),
    );
    const created = new Map<string, Entry>();
    const made = keys.map((key, at) => {
      const entry: Entry = { expires: this.now() + this.ttlMs(), loading, at, value: undefined, refreshing: false, used: false };
      const stale = this.entries.get(key);
      if (!stale) {
        this.entries.set(key, entry);
        created.set(key, entry);
      }
      return { entry, stale };
    });
    loading.then(
      (loaded) => this.settle(keys, made, loaded),
      () =>
        keys.forEach((key, n) => {
          const current = this.entries.get(key);
          if (current === made[n]!.stale || current === made[n]!.entry) this.delete(key);
        }),
    );
    return created;
  }

  /**
   * A load is in: every value is set before any is counted, so eviction (which may copy a batch
   * down to the values entries hold) sees the whole load in place.
   */
  private settle(keys: string[], made: Array<{ entry: Entry; stale: Entry | undefined }>, { values, batch }: Loaded): void {
    if (batch) {
      this.batches.set(batch.buffer, batch);
      this.bytes += batchCost(batch);
    }
    made.forEach(({ entry, stale }, n) => {
      const key = keys[n]!;
      entry.value = values[n]!;
      entry.loading = undefined;
      // A refreshed entry counts its time from when its value is in; one forgotten meanwhile stays forgotten.
      if (stale && this.entries.get(key) === stale) {
        this.delete(key);
        this.entries.set(key, { ...entry, expires: this.now() + this.ttlMs() });
      } else if (this.entries.get(key) !== entry) return;
      this.held(entry, 1);
    });
    // Values forgotten while they loaded are dead from the start.
    if (batch) this.compactIfHalfDead(batch);
    const newest = this.entries.get(keys[keys.length - 1]!);
    while (this.bytes > this.maxBytes && this.entries.size > 1) {
      // The newest entry, whose arrival made room necessary, is spared.
      const evicted = evictSecondChance(this.entries, newest);
      if (evicted) this.released(evicted);
    }
  }

  /** These keys changed: their next lookup reads the database. */
  forget(keys: string[]): void {
    for (const key of keys) this.delete(key);
  }

  /** Changes may have gone unheard: every key is read again. */
  clear(): void {
    this.entries.clear();
    this.batches = new WeakMap();
    this.bytes = 0;
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.released(entry);
  }

  /** `entry` left the map. */
  private released(entry: Entry): void {
    if (entry.value === undefined) return;
    const batch = this.held(entry, -1);
    if (batch) this.compactIfHalfDead(batch);
  }

  /** Counts a settled entry in (+1) or out (−1) of the map; returns the batch its value is in. */
  private held(entry: Entry, sign: 1 | -1): Batch | undefined {
    this.bytes += sign * ENTRY_OVERHEAD_BYTES;
    const batch = entry.value ? this.batches.get(entry.value.buffer) : undefined;
    if (batch) batch.held += sign * entry.value!.length;
    return batch;
  }

  /** Once half of a batch's bytes are dead, the values entries hold are copied into a batch of their own and the old one is let go. */
  private compactIfHalfDead(batch: Batch): void {
    if (batch.held * 2 > batch.bytes) return;
    this.batches.delete(batch.buffer);
    this.bytes -= batchCost(batch);
    const keys = batch.keys.filter((key) => this.entries.get(key)?.value?.buffer === batch.buffer);
    if (keys.length === 0) return;
    const holders = keys.map((key) => this.entries.get(key)!);
    const { values, batch: survivors } = keepTogether(
      keys,
      holders.map((e) => e.value!),
    );
    holders.forEach((e, n) => (e.value = values[n]!));
    survivors!.held = survivors!.bytes;
    this.batches.set(survivors!.buffer, survivors!);
    this.bytes += batchCost(survivors!);
  }
}

const batchCost = (batch: Batch) => batch.bytes + KEPT_BUFFER_NATIVE_BYTES;

/** JSON bytes copied into one allocation of their own, to be kept (see `Batch`); `keys` are theirs. */
function keepTogether(keys: string[], json: Array<Buffer | null>): Loaded {
  const bytes = json.reduce((sum, b) => sum + (b?.length ?? 0), 0);
  if (bytes === 0) return { values: json, batch: undefined };
  const all = Buffer.allocUnsafeSlow(bytes);
  let at = 0;
  const values = json.map((b) => {
    if (!b) return null;
    b.copy(all, at);
    at += b.length;
    return all.subarray(at - b.length, at);
  });
  return { values, batch: { buffer: all.buffer, keys, bytes, held: 0 } };
}

const toJsonOrNull = (value: unknown) => (value === undefined ? null : toJsonBytes(value));
