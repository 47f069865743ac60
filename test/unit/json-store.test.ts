import { KEPT_BUFFER_NATIVE_BYTES } from '../../src/json-bytes';
import { ENTRY_OVERHEAD_BYTES, JsonStore } from '../../src/services/search/json-store';
import { prng } from '../support/random';

const json = (s: string) => Buffer.from(s, 'latin1');
const read = (store: JsonStore, key: string) => {
  const record = store.find(key);
  return record < 0 ? undefined : (store.value(record)?.toString('latin1') ?? null);
};

describe('JsonStore', () => {
  it('agrees with a Map through random puts, deletes and evictions, across index growth and compactions', () => {
    const random = prng(11);
    // Small segments, so values roll over and segments are compacted many times.
    const store = new JsonStore(512);
    const model = new Map<string, string | null>();
    const keys = Array.from({ length: 3000 }, (_, n) => `pokemon/set-${n % 37}/${n}`);
    for (let step = 0; step < 40_000; step += 1) {
      const key = keys[Math.floor(random() * (step < 20_000 ? keys.length : 300))]!;
      const roll = random();
      if (roll < 0.55) {
        const value = random() < 0.1 ? null : `{"urn":"${key}","n":${step}${'x'.repeat(Math.floor(random() * 120))}}`;
        store.put(key, value === null ? null : json(value), step);
        model.set(key, value);
      } else if (roll < 0.85) {
        store.delete(key);
        model.delete(key);
      } else if (roll < 0.9 && store.size > 1) {
        const before = store.size;
        expect(store.evictOne()).toBe(true);
        expect(store.size).toBe(before - 1);
        for (const k of [...model.keys()]) if (store.find(k) < 0) model.delete(k);
      } else {
        const record = store.find(key);
        if (record >= 0) store.used(record);
      }
      if (step % 1000 === 0) {
        expect(store.size).toBe(model.size);
        for (const [k, v] of model) expect([k, read(store, k)]).toEqual([k, v]);
        for (const k of keys.slice(0, 200)) if (!model.has(k)) expect(store.find(k)).toBe(-1);
      }
    }
    // What the budget counts is exactly what the live entries hold, plus one record per segment.
    const live = [...model].reduce((sum, [k, v]) => sum + ENTRY_OVERHEAD_BYTES + k.length + (v?.length ?? 0), 0);
    expect((store.bytes - live) % KEPT_BUFFER_NATIVE_BYTES).toBe(0);
    const segments = (store.bytes - live) / KEPT_BUFFER_NATIVE_BYTES;
    expect(segments).toBeGreaterThan(0);
    // Dead bytes stay bounded: far fewer segments than were ever filled.
    expect(segments * 512).toBeLessThan(3 * live);
  });

  it('keeps the bytes of a value handed out, even once its segment is compacted away', () => {
    const store = new JsonStore(64);
    store.put('a', json('{"a":1}'), 0);
    store.put('b', json('{"b":2}'), 0);
    store.put('c', json('{"c":3}'), 0);
    const b = store.value(store.find('b'))!;
    const segment = b.buffer;
    // Enough values to roll over, then enough deaths for the first segment to be compacted.
    for (let n = 0; n < 12; n += 1) store.put(`k${n}`, json(`{"k":${n}}`), 0);
    store.delete('a');
    store.delete('c');
    const moved = store.value(store.find('b'))!;
    expect(moved.buffer).not.toBe(segment);
    expect(moved.toString()).toBe('{"b":2}');
    expect(b.toString()).toBe('{"b":2}');
  });

  it('evicts by second chance: an entry marked since the hand last passed keeps its place once', () => {
    const store = new JsonStore();
    for (const key of ['a', 'b', 'c']) store.put(key, json('1'), 0);
    store.used(store.find('a'));
    expect(store.evictOne()).toBe(true);
    expect(['a', 'b', 'c'].map((k) => store.find(k) >= 0)).toEqual([true, false, true]);
    // The hand passed 'a' and cleared its mark; 'c' is next, and is spared when asked.
    expect(store.evictOne(store.find('c'))).toBe(true);
    expect(['a', 'b', 'c'].map((k) => store.find(k) >= 0)).toEqual([false, false, true]);
    expect(store.evictOne(store.find('c'))).toBe(false);
  });

  it('never keeps a key that is not ASCII (keys are compared byte for byte)', () => {
    const store = new JsonStore();
    expect(store.put('pokémon/1', json('1'), 0)).toBe(-1);
    expect(store.find('pokémon/1')).toBe(-1);
    expect(store.size).toBe(0);
  });

  it('tells a key without a value (null) from one it does not hold', () => {
    const store = new JsonStore();
    store.put('nope/x', null, 5);
    const record = store.find('nope/x');
    expect(record).toBeGreaterThanOrEqual(0);
    expect(store.value(record)).toBeNull();
    expect(store.expires(record)).toBe(5);
    expect(store.find('nope/y')).toBe(-1);
  });
});
