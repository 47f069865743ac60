/**
 * Evicts one entry of `entries` by second chance ("clock"): from the oldest entry (a Map
 * iterates in insertion order), an entry `used` since eviction last passed it goes to the back
 * with its mark cleared; the first unmarked one (other than `spare`) is removed and returned.
 * Popular entries stay however full a cache runs, while a stream of one-off keys passes through,
 * which plain oldest-first eviction does not give; the cost is a flag set per hit.
 */
export function evictSecondChance<K, E extends { used?: boolean }>(entries: Map<K, E>, spare?: E): E | undefined {
  for (const [key, entry] of entries) {
    entries.delete(key);
    if (!entry.used && entry !== spare) return entry;
    entry.used = false;
    entries.set(key, entry);
  }
  return undefined;
}
