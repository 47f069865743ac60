import { toKeptJsonBytes } from '../../json-bytes';
import type { ItemView } from './item-view';

interface Entry {
  expires: number;
  /** The item as JSON bytes (`toJsonBytes`), or null when the URN is not in the catalog. */
  json: Promise<Buffer | null>;
  /** `json` once settled: a lookup whose entries are all settled answers without a promise each. */
  value?: Buffer | null;
  /** An expired entry being re-read: it keeps answering until the new value is in. */
  refreshing: boolean;
  /** Answered since eviction last passed it: it gets a second chance (see `evictOne`). */
  used?: boolean;
  /** What it counts against `maxBytes`, once its value is in (see `ENTRY_OVERHEAD_BYTES`). */
  bytes: number;
}

/**
 * What an entry costs beyond its JSON bytes, estimated: the key string, the map slot, the entry,
 * its promise and the Buffer object.
 */
export const ENTRY_OVERHEAD_BYTES = 200;

/**
 * Serialized item views by URN, each kept until the item changes (`forget`, from the database's
 * change notifications) or for at most `ttlMs()`: the working set of bulk lookup and catalog
 * search. A lookup takes what it finds here and loads everything else with ONE call to `load`
 * (one database round trip), so any mix of URNs benefits, not only repeated identical requests.
 *
 * - A change forgets the item at once, including a load of it still in flight: that load still
 *   answers the lookups that started before the change was heard, and is not kept.
 * - Items are kept as JSON bytes (`toJsonBytes`): serializing and encoding them, not reading
 *   the map, is the cost of a hit.
 * - An expired item is still answered while a single refresh of it runs (in the same batch as
 *   the lookup's missing URNs), so expiry never makes a burst of lookups wait: an answer is at
 *   most `ttlMs` plus one query old. A failed refresh drops the entry, so the next lookup
 *   waits for the database rather than serving an ever older value.
 * - URNs being loaded for a concurrent lookup are awaited, not loaded twice; a failed load is
 *   forgotten at once so the next lookup retries it.
 */
export class ItemJsonCache {
  private readonly entries = new Map<string, Entry>();
  /** The sum of the kept entries' `bytes`. */
  private bytes = 0;

  constructor(
    private readonly load: (urns: string[]) => Promise<Map<string, ItemView>>,
    /** How long an entry stored now may live; read at each store (it depends on whether changes are heard). 0: no cache. */
    private readonly ttlMs: () => number,
    /** The memory budget: entries are evicted while their bytes exceed it. */
    private readonly maxBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Each URN's item as JSON bytes (`toJsonBytes`), or null for a URN not in the catalog, in the order given. */
  async getMany(urns: string[]): Promise<Array<Buffer | null>> {
    if (this.ttlMs() <= 0) {
      const found = await this.load(urns);
      return urns.map((urn) => serialize(found.get(urn)));
    }
    const now = this.now();
    // Entries are taken before anything is stored: storing may evict entries this lookup uses.
    const entries = urns.map((urn) => this.entries.get(urn));
    const toLoad = new Set<string>();
    entries.forEach((entry, n) => {
      if (entry) entry.used = true;
      if (entry && (entry.expires > now || entry.refreshing)) return;
      if (entry) entry.refreshing = true;
      toLoad.add(urns[n]!);
    });
    const loaded = toLoad.size > 0 ? this.loadBatch([...toLoad]) : undefined;
    const answer = entries.map((entry, n) => entry ?? loaded!.get(urns[n]!)!);
    if (answer.every((e) => e.value !== undefined)) return answer.map((e) => e.value!);
    return Promise.all(answer.map((e) => e.json));
  }

  /**
   * Loads `urns` in one call. URNs without an entry get one at once (so concurrent lookups
   * await this load), returned by URN; an expired entry is replaced once its new value is in.
   */
  private loadBatch(urns: string[]): Map<string, Entry> {
    const batch = this.load(urns);
    const created = new Map<string, Entry>();
    for (const urn of urns) {
      const json = batch.then((found) => serialize(found.get(urn)));
      const entry: Entry = { expires: this.now() + this.ttlMs(), json, refreshing: false, bytes: 0 };
      const stale = this.entries.get(urn);
      json.then(
        (value) => {
          entry.value = value;
          // A refreshed entry counts its time from when its value is in; one forgotten meanwhile stays forgotten.
          if (stale && this.entries.get(urn) === stale) this.store(urn, { ...entry, expires: this.now() + this.ttlMs() });
          else if (this.entries.get(urn) === entry) this.count(entry);
        },
        () => {
          const current = this.entries.get(urn);
          if (current === stale || current === entry) this.delete(urn);
        },
      );
      if (!stale) {
        this.store(urn, entry);
        created.set(urn, entry);
      }
    }
    return created;
  }

  /** These items changed: their next lookup reads the database. */
  forget(urns: string[]): void {
    for (const urn of urns) this.delete(urn);
  }

  /** Changes may have gone unheard: every item is read again. */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  /** Puts `entry` in place of what `urn` had, at the back of the eviction order. */
  private store(urn: string, entry: Entry): void {
    this.delete(urn);
    this.entries.set(urn, entry);
    if (entry.value !== undefined) this.count(entry);
  }

  private delete(urn: string): void {
    this.bytes -= this.entries.get(urn)?.bytes ?? 0;
    this.entries.delete(urn);
  }

  /** A kept entry's value is in: it counts against the budget from now on. */
  private count(entry: Entry): void {
    entry.bytes = ENTRY_OVERHEAD_BYTES + (entry.value?.length ?? 0);
    this.bytes += entry.bytes;
    while (this.bytes > this.maxBytes && this.entries.size > 1) this.evictOne(entry);
  }

  /**
   * Second chance ("clock"): from the oldest entry (a Map iterates in insertion order), an entry
   * answered since it was last passed goes to the back with its mark cleared; the first unmarked
   * one is evicted. Popular items stay however full the cache runs, which plain oldest-first
   * eviction did not give when the working set exceeds the budget, at the cost of a flag per hit.
   * `kept`, the entry whose arrival made room necessary, is passed over.
   */
  private evictOne(kept: Entry): void {
    for (const [urn, entry] of this.entries) {
      this.entries.delete(urn);
      if (!entry.used && entry !== kept) {
        this.bytes -= entry.bytes;
        return;
      }
      entry.used = false;
      this.entries.set(urn, entry);
    }
  }
}

const serialize = (item: ItemView | undefined) => (item === undefined ? null : toKeptJsonBytes(item));
