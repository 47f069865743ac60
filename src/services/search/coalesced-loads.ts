/** Reads the values of the keys given, by key; a key without one is absent from the map. */
export type BatchLoad<V> = (keys: string[]) => Promise<Map<string, V>>;

/**
 * Wraps `load` so that the keys asked for in one turn of the event loop are read with one call:
 * the call waits for the turn's other requests (`setImmediate` runs once the sockets that were
 * ready have all been read), then reads their keys together. A caller whose keys would take a
 * batch past `maxKeys` starts the next one (one caller's keys are never split).
 *
 * Why: a cache of item views misses only a few keys per request once it is warm, so without
 * this, nearly every request under load makes a database round trip of its own for one or two
 * items, and the round trips, not the rows, are what the database spends its time on. A quiet
 * service loses one turn of the event loop (microseconds); a busy one reads once per turn.
 *
 * Every caller gets the whole batch's map: it holds the caller's keys, and perhaps others.
 * A key two callers ask for is passed twice (only with the caches off: `JsonCache` otherwise asks
 * for a key only while no load of it is pending); the loaders read each key once. A failed call
 * fails every caller of its batch.
 */
export function coalesceLoads<V>(load: BatchLoad<V>, maxKeys: number): BatchLoad<V> {
  let pending: { keys: string[]; found: Promise<Map<string, V>> } | undefined;
  return (keys) => {
    if (!pending || pending.keys.length + keys.length > maxKeys) {
      const batchKeys: string[] = [];
      const found = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        if (pending?.keys === batchKeys) pending = undefined;
        return load(batchKeys);
      });
      pending = { keys: batchKeys, found };
    }
    pending.keys.push(...keys);
    return pending.found;
  };
}
