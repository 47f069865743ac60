import { KEPT_BUFFER_NATIVE_BYTES } from '../../json-bytes';

/**
 * A record is 8 Int32 slots (32 bytes, half a cache line): the key's hash, where its key and
 * value bytes are (segment, offset of the value's header, lengths), flags, and its expiry as a
 * float64 in the last two slots.
 */
const RECORD_INTS = 8;
const [HASH, SEGMENT, OFFSET, KEY_LENGTH, VALUE_LENGTH, FLAGS] = [0, 1, 2, 3, 4, 5] as const;
/** The expiry's index in the Float64Array view of the records. */
const EXPIRES_F64 = 3;
/** `VALUE_LENGTH` of a key known to have no value (a URN not in the catalog). */
const NO_VALUE = -1;
const IN_USE = 1;
/** Answered since eviction last passed it (see `evictOne`). */
const USED = 2;
/** Expired and being read again: it keeps answering until the new value is in. */
const REFRESHING = 4;

/** In front of every value in a segment: its record, its key's length and its value's length (Int32 each). */
const HEADER_BYTES = 12;

/** An entry's bytes in its segment: header, key, value (none for `NO_VALUE`). */
const storedLength = (keyLength: number, valueLength: number) => HEADER_BYTES + keyLength + Math.max(0, valueLength);

/** Records and index slots a store starts with (both double as it grows). */
const INITIAL_CAPACITY = 64;

/**
 * What a kept value costs beyond its key and value bytes: its record (32 bytes, up to twice that
 * while the records grow), its index slots (8 bytes each, 2 to 4 per record) and its header in
 * the segment. `bench/catalog/cache-weights.ts` weighs it against what a filled cache holds.
 */
export const ENTRY_OVERHEAD_BYTES = 2 * RECORD_INTS * 4 + 4 * 8 + HEADER_BYTES;

/** Segments are allocated this large unless one value needs more. */
export const SEGMENT_BYTES = 1 << 20;

interface Segment {
  bytes: Buffer;
  /** Bytes appended so far (live and dead). */
  used: number;
  /** Bytes of values (with their keys and headers) that records still point at. */
  live: number;
}

/**
 * A segment other than the current one is compacted once more than this share of it is dead, so
 * dead bytes stay under a third of the live ones (plus what the current segment holds). Copying
 * is cheap next to what fills a cache (a database read per value), so the bound is kept tight.
 */
const COMPACT_WHEN_DEAD = 1 / 4;

/** FNV-1a over the key's UTF-16 code units: cheap for the short ASCII keys kept here. */
function hashOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h;
}

const isAscii = (key: string) => {
  for (let i = 0; i < key.length; i += 1) if (key.charCodeAt(i) > 0x7f) return false;
  return true;
};

/**
 * Settled JSON values by key, laid out for lookups that miss the CPU's caches as rarely as they
 * can: an open-addressing index in one Int32Array, records in another, and each key's bytes
 * right before its value's in a large segment. A hit reads three places (index slot, record,
 * bytes) where a `Map` of entry objects holding Buffers read a chain of them, each depending on
 * the one before (the map's bucket and slot, the key string compared, the entry, the Buffer, the
 * bytes), and `findMany` reads each kind for all of a lookup's keys before the next, so their
 * cache misses overlap. A bulk lookup of 200 URNs over 100k kept items spent most of its time
 * in those misses (docs/discover.md, "Kept values live in a flat store").
 *
 * - Keys must be ASCII (URNs, UUIDs, price guide keys): they are compared byte for byte. A key
 *   that is not is never stored, so it is read from the database each time (`put` returns -1).
 * - Values are appended to the current segment (a Buffer of `SEGMENT_BYTES`), so 100k kept values
 *   are about 100 allocations, not 100k: many small long-lived allocations among the answers'
 *   transient ones had left glibc's heap fragmented. A value that dies leaves its bytes in its
 *   segment; once a quarter of a segment is dead (`COMPACT_WHEN_DEAD`), its live values are copied
 *   to the current segment and it is let go. A Buffer handed out (`value`) keeps its segment's
 *   memory alive, so an answer being built never loses bytes to a compaction.
 * - `bytes`, what a budget is held to, counts live entries (`ENTRY_OVERHEAD_BYTES` and their key
 *   and value bytes) and malloc's records of each segment: evicting an entry must bring it down,
 *   or a full cache would evict on and on until some segment happened to be worth compacting.
 * - Eviction is by second chance (CLOCK) over the records: a hand passes the records in turn,
 *   an entry answered since it last passed keeps its place with its mark cleared, the first
 *   unmarked one goes. Popular entries stay however full the store runs, while a stream of
 *   one-off keys passes through.
 */
export class JsonStore {
  /** Pairs of (hash, record + 1); record + 1 is 0 in an empty slot. Never more than half full. */
  private index = new Int32Array(2 * INITIAL_CAPACITY);
  private records = new Int32Array(RECORD_INTS * INITIAL_CAPACITY);
  private expiries = new Float64Array(this.records.buffer);
  /** Record numbers free for reuse, and the first never used. */
  private readonly free: number[] = [];
  private fresh = 0;
  private segments: Array<Segment | undefined> = [];
  private current = -1;
  /** Where eviction's hand is (a record number). */
  private hand = 0;
  /** Keeps the touching loads of `findMany` from being optimized away. */
  private touched = 0;
  /** Kept entries. */
  size = 0;
  /** What counts against a budget: each entry's key and value bytes and `ENTRY_OVERHEAD_BYTES`, and malloc's records of each segment. */
  bytes = 0;

  constructor(private readonly segmentBytes = SEGMENT_BYTES) {}

  /** Segments allocated (each one allocation, and malloc's records of it). */
  get segmentCount(): number {
    return this.segments.filter((segment) => segment !== undefined).length;
  }

  /** The record of `key`, or -1. */
  find(key: string): number {
    const hash = hashOf(key);
    const { index } = this;
    const mask = (index.length >> 1) - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const record = index[2 * slot + 1]! - 1;
      if (record < 0) return -1;
      if (index[2 * slot] === hash && this.holdsKey(record, key)) return record;
    }
  }

  /**
   * `find` for many keys at once, into `records`. In phases, each touching one kind of memory for
   * every key before the next phase reads it (index slots, records, the values' first bytes):
   * the loads of one phase do not depend on each other, so the CPU has many cache misses in
   * flight at once instead of one after another. A slot whose hash matches is taken at once and
   * its key compared last; on a collision the key is looked up again with `find`.
   */
  findMany(keys: string[], records: Int32Array): void {
    const { index } = this;
    const mask = (index.length >> 1) - 1;
    const n = keys.length;
    const hashes = new Int32Array(n);
    let touched = 0;
    for (let k = 0; k < n; k += 1) {
      const hash = hashOf(keys[k]!);
      hashes[k] = hash;
      touched ^= index[2 * (hash & mask) + 1]!;
    }
    for (let k = 0; k < n; k += 1) {
      let record = -1;
      for (let slot = hashes[k]! & mask; ; slot = (slot + 1) & mask) {
        const candidate = index[2 * slot + 1]! - 1;
        if (candidate < 0) break;
        if (index[2 * slot] === hashes[k]) {
          record = candidate;
          break;
        }
      }
      records[k] = record;
      if (record >= 0) touched ^= this.records[record * RECORD_INTS + OFFSET]!;
    }
    for (let k = 0; k < n; k += 1) {
      const record = records[k]!;
      if (record < 0) continue;
      const at = record * RECORD_INTS;
      touched ^= this.segments[this.records[at + SEGMENT]!]!.bytes[this.records[at + OFFSET]! + HEADER_BYTES]!;
    }
    for (let k = 0; k < n; k += 1) {
      const record = records[k]!;
      if (record >= 0 && !this.holdsKey(record, keys[k]!)) records[k] = this.find(keys[k]!);
    }
    this.touched = touched;
  }

  private holdsKey(record: number, key: string): boolean {
    const at = record * RECORD_INTS;
    if (this.records[at + KEY_LENGTH] !== key.length) return false;
    const bytes = this.segments[this.records[at + SEGMENT]!]!.bytes;
    const start = this.records[at + OFFSET]! + HEADER_BYTES;
    for (let i = 0; i < key.length; i += 1) if (bytes[start + i] !== key.charCodeAt(i)) return false;
    return true;
  }

  /** The record's value as JSON bytes (a view into its segment), or null for a key without one. */
  value(record: number): Buffer | null {
    const at = record * RECORD_INTS;
    const length = this.records[at + VALUE_LENGTH]!;
    if (length === NO_VALUE) return null;
    const segment = this.segments[this.records[at + SEGMENT]!]!.bytes;
    const start = segment.byteOffset + this.records[at + OFFSET]! + HEADER_BYTES + this.records[at + KEY_LENGTH]!;
    return Buffer.from(segment.buffer, start, length);
  }

  expires(record: number): number {
    return this.expiries[record * (RECORD_INTS / 2) + EXPIRES_F64]!;
  }

  /** Marks the record answered (eviction passes it over once). */
  used(record: number): void {
    this.records[record * RECORD_INTS + FLAGS]! |= USED;
  }

  /** Marks the record as being read again; false if it already was. */
  startRefresh(record: number): boolean {
    const at = record * RECORD_INTS + FLAGS;
    if (this.records[at]! & REFRESHING) return false;
    this.records[at]! |= REFRESHING;
    return true;
  }

  isRefreshing(record: number): boolean {
    return (this.records[record * RECORD_INTS + FLAGS]! & REFRESHING) !== 0;
  }

  /**
   * Keeps `value` (null: the key has none) for `key` until `expires`, replacing what the key held.
   * Returns the new record, or -1 for a key that is not ASCII (never kept).
   */
  put(key: string, value: Buffer | null, expires: number): number {
    if (!isAscii(key)) return -1;
    this.delete(key);
    const valueLength = value?.length ?? NO_VALUE;
    const length = storedLength(key.length, valueLength);
    const segmentNumber = this.room(length);
    const segment = this.segments[segmentNumber]!;
    const offset = segment.used;
    const record = this.newRecord();
    segment.bytes.writeInt32LE(record, offset);
    segment.bytes.writeInt32LE(key.length, offset + 4);
    segment.bytes.writeInt32LE(valueLength, offset + 8);
    segment.bytes.write(key, offset + HEADER_BYTES, 'latin1');
    value?.copy(segment.bytes, offset + HEADER_BYTES + key.length);
    segment.used += length;
    segment.live += length;
    this.bytes += length - HEADER_BYTES + ENTRY_OVERHEAD_BYTES;
    this.size += 1;
    const hash = hashOf(key);
    this.setRecord(record, hash, segmentNumber, offset, key.length, valueLength, IN_USE);
    this.expiries[record * (RECORD_INTS / 2) + EXPIRES_F64] = expires;
    this.insert(hash, record);
    return record;
  }

  /** Drops `key` if kept. */
  delete(key: string): void {
    const record = this.find(key);
    if (record >= 0) this.remove(record);
  }

  /**
   * Evicts one entry by second chance, never `spare`: the first record the hand finds in use
   * and unmarked, clearing the marks it passes. Returns false when nothing but `spare` is left.
   */
  evictOne(spare = -1): boolean {
    const end = this.fresh;
    if (end === 0) return false;
    // Two full turns: the first may only clear marks.
    for (let step = 0; step < 2 * end + 1; step += 1) {
      const record = this.hand;
      this.hand = (this.hand + 1) % end;
      const at = record * RECORD_INTS + FLAGS;
      const flags = this.records[at]!;
      if (!(flags & IN_USE) || record === spare) continue;
      if (flags & USED) {
        this.records[at] = flags & ~USED;
        continue;
      }
      this.remove(record);
      return true;
    }
    return false;
  }

  /** Drops everything. */
  clear(): void {
    this.index = new Int32Array(2 * INITIAL_CAPACITY);
    this.records = new Int32Array(RECORD_INTS * INITIAL_CAPACITY);
    this.expiries = new Float64Array(this.records.buffer);
    this.free.length = 0;
    this.fresh = 0;
    this.segments = [];
    this.current = -1;
    this.hand = 0;
    this.size = 0;
    this.bytes = 0;
  }

  private remove(record: number): void {
    const at = record * RECORD_INTS;
    this.unindex(record);
    const segmentNumber = this.records[at + SEGMENT]!;
    const length = storedLength(this.records[at + KEY_LENGTH]!, this.records[at + VALUE_LENGTH]!);
    this.records.fill(0, at, at + RECORD_INTS);
    this.free.push(record);
    this.size -= 1;
    this.bytes -= length - HEADER_BYTES + ENTRY_OVERHEAD_BYTES;
    this.segments[segmentNumber]!.live -= length;
    if (segmentNumber !== this.current) this.compactIfDead(segmentNumber);
  }

  /** A segment with `length` bytes free at its end: the current one, or a new one. */
  private room(length: number): number {
    const current = this.segments[this.current];
    if (current && current.bytes.length - current.used >= length) return this.current;
    const previous = this.current;
    let number = this.segments.indexOf(undefined);
    if (number < 0) number = this.segments.length;
    this.segments[number] = { bytes: Buffer.allocUnsafeSlow(Math.max(this.segmentBytes, length)), used: 0, live: 0 };
    this.bytes += KEPT_BUFFER_NATIVE_BYTES;
    this.current = number;
    // The segment just left behind may already be dead enough.
    if (previous >= 0) this.compactIfDead(previous);
    return number;
  }

  /** Once enough of a segment is dead, its live values move to the current segment and it is let go. */
  private compactIfDead(number: number): void {
    const segment = this.segments[number]!;
    if (segment.used - segment.live <= segment.used * COMPACT_WHEN_DEAD) return;
    const { bytes } = segment;
    for (let offset = 0; offset < segment.used;) {
      const record = bytes.readInt32LE(offset);
      const length = storedLength(bytes.readInt32LE(offset + 4), bytes.readInt32LE(offset + 8));
      const at = record * RECORD_INTS;
      if (this.records[at + FLAGS]! & IN_USE && this.records[at + SEGMENT] === number && this.records[at + OFFSET] === offset) {
        const target = this.room(length);
        const into = this.segments[target]!;
        bytes.copy(into.bytes, into.used, offset, offset + length);
        this.records[at + SEGMENT] = target;
        this.records[at + OFFSET] = into.used;
        into.used += length;
        into.live += length;
      }
      offset += length;
    }
    // Only now: a segment made while copying must not take this one's number, which its dead headers still name.
    this.segments[number] = undefined;
    this.bytes -= KEPT_BUFFER_NATIVE_BYTES;
  }

  private newRecord(): number {
    const reused = this.free.pop();
    if (reused !== undefined) return reused;
    if ((this.fresh + 1) * RECORD_INTS > this.records.length) {
      const grown = new Int32Array(this.records.length * 2);
      grown.set(this.records);
      this.records = grown;
      this.expiries = new Float64Array(grown.buffer);
    }
    return this.fresh++;
  }

  private setRecord(record: number, hash: number, segment: number, offset: number, keyLength: number, valueLength: number, flags: number) {
    const at = record * RECORD_INTS;
    const r = this.records;
    r[at + HASH] = hash;
    r[at + SEGMENT] = segment;
    r[at + OFFSET] = offset;
    r[at + KEY_LENGTH] = keyLength;
    r[at + VALUE_LENGTH] = valueLength;
    r[at + FLAGS] = flags;
  }

  private insert(hash: number, record: number): void {
    if ((this.size + 1) * 4 > this.index.length) {
      const old = this.index;
      this.index = new Int32Array(old.length * 2);
      for (let s = 0; s < old.length; s += 2) if (old[s + 1] !== 0) this.place(old[s]!, old[s + 1]!);
    }
    this.place(hash, record + 1);
  }

  /** Puts (hash, record + 1) in the first empty slot from the hash's home. */
  private place(hash: number, recordPlusOne: number): void {
    const mask = (this.index.length >> 1) - 1;
    let slot = hash & mask;
    while (this.index[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
    this.index[2 * slot] = hash;
    this.index[2 * slot + 1] = recordPlusOne;
  }

  /** Removes the record's slot, shifting back the slots after it that would no longer be found (linear probing). */
  private unindex(record: number): void {
    const { index } = this;
    const mask = (index.length >> 1) - 1;
    let hole = this.records[record * RECORD_INTS + HASH]! & mask;
    while (index[2 * hole + 1] !== record + 1) hole = (hole + 1) & mask;
    for (let next = (hole + 1) & mask; index[2 * next + 1] !== 0; next = (next + 1) & mask) {
      const home = index[2 * next]! & mask;
      // The entry at `next` may move into the hole only if its home is not between the hole and it (cyclically).
      const between = hole <= next ? hole < home && home <= next : hole < home || home <= next;
      if (between) continue;
      index[2 * hole] = index[2 * next]!;
      index[2 * hole + 1] = index[2 * next + 1]!;
      hole = next;
    }
    index[2 * hole] = 0;
    index[2 * hole + 1] = 0;
  }
}
