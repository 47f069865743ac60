import { KEPT_BUFFER_NATIVE_BYTES } from '../../src/json-bytes';
import { JsonCache } from '../../src/services/search/json-cache';
import { ENTRY_OVERHEAD_BYTES } from '../../src/services/search/json-store';
import type { ItemView } from '../../src/services/catalog/item-view';

/** A loader over a fixed catalog that records every call, standing in for the one SQL query. */
function catalog(known: string[]) {
  const calls: string[][] = [];
  let price = 100;
  return {
    calls,
    reprice: (p: number) => (price = p),
    load: async (urns: string[]) => {
      calls.push([...urns]);
      return new Map(urns.filter((u) => known.includes(u)).map((u) => [u, { urn: u, price } as unknown as ItemView]));
    },
  };
}

/** Lets a background refresh finish. */
const settle = () => new Promise((r) => setImmediate(r));

/** The cached bytes as text, to compare. */
const text = (items: Array<Buffer | null>) => items.map((b) => (b === null ? null : b.toString('utf8')));

describe('JsonCache', () => {
  let clock = 0;
  beforeEach(() => {
    clock = 0;
  });

  it('serves fresh items from memory and loads only the missing ones, in one call', async () => {
    const c = catalog(['a', 'b', 'c']);
    const cache = new JsonCache(
      c.load,
      () => 1000,
      1_000_000,
      () => clock,
    );
    expect(text(await cache.getMany(['a', 'b']))).toEqual(['{"urn":"a","price":100}', '{"urn":"b","price":100}']);
    expect(text(await cache.getMany(['c', 'b', 'a', 'x']))).toEqual([
      '{"urn":"c","price":100}',
      '{"urn":"b","price":100}',
      '{"urn":"a","price":100}',
      null,
    ]);
    expect(c.calls).toEqual([
      ['a', 'b'],
      ['c', 'x'],
    ]);
  });

  it('answers an expired item once more while one refresh runs, then the new value; unknown URNs alike', async () => {
    const c = catalog(['a']);
    const cache = new JsonCache(
      c.load,
      () => 1000,
      1_000_000,
      () => clock,
    );
    await cache.getMany(['a', 'x']);
    c.reprice(250);
    clock = 999;
    expect(text(await cache.getMany(['a', 'x']))).toEqual(['{"urn":"a","price":100}', null]);
    expect(c.calls).toEqual([['a', 'x']]);
    clock = 1000;
    const [during, alsoDuring] = await Promise.all([cache.getMany(['a', 'x']), cache.getMany(['a'])]);
    expect(text(during)).toEqual(['{"urn":"a","price":100}', null]);
    expect(text(alsoDuring)).toEqual(['{"urn":"a","price":100}']);
    await settle();
    expect(text(await cache.getMany(['a', 'x']))).toEqual(['{"urn":"a","price":250}', null]);
    // One refresh for both concurrent lookups.
    expect(c.calls).toEqual([
      ['a', 'x'],
      ['a', 'x'],
    ]);
  });

  it('drops an item whose refresh failed, so the next lookup waits for the database instead of an older value', async () => {
    const c = catalog(['a']);
    let fail = false;
    const cache = new JsonCache(
      (urns) => (fail ? Promise.reject(new Error('db down')) : c.load(urns)),
      () => 1000,
      1_000_000,
      () => clock,
    );
    await cache.getMany(['a']);
    clock = 1000;
    fail = true;
    expect(text(await cache.getMany(['a']))).toEqual(['{"urn":"a","price":100}']);
    await settle();
    await expect(cache.getMany(['a'])).rejects.toThrow('db down');
    fail = false;
    c.reprice(300);
    expect(text(await cache.getMany(['a']))).toEqual(['{"urn":"a","price":300}']);
  });

  it('lets concurrent lookups of the same URNs share one load, and answers repeats in place', async () => {
    const c = catalog(['a', 'b']);
    const cache = new JsonCache(
      c.load,
      () => 1000,
      1_000_000,
      () => clock,
    );
    const [first, second] = (await Promise.all([cache.getMany(['a', 'b']), cache.getMany(['b', 'a', 'b'])])).map(text);
    expect(first).toEqual(['{"urn":"a","price":100}', '{"urn":"b","price":100}']);
    expect(second).toEqual(['{"urn":"b","price":100}', '{"urn":"a","price":100}', '{"urn":"b","price":100}']);
    expect(c.calls).toEqual([['a', 'b']]);
  });

  it('forgets a failed load, so the next lookup retries it', async () => {
    const c = catalog(['a']);
    let fail = true;
    const cache = new JsonCache(
      (urns) => (fail ? Promise.reject(new Error('db down')) : c.load(urns)),
      () => 1000,
      1_000_000,
      () => clock,
    );
    await expect(cache.getMany(['a'])).rejects.toThrow('db down');
    fail = false;
    expect(text(await cache.getMany(['a']))).toEqual(['{"urn":"a","price":100}']);
  });

  it('keeps what fits its byte budget, evicting an item not answered since eviction last passed it, without losing an answer being built', async () => {
    const c = catalog(['a', 'b', 'c', 'd']);
    const cache = new JsonCache(
      c.load,
      () => 1000,
      // Room for two of these items (key 'a', value '{"urn":"a","price":100}': 23 bytes) in one segment.
      2 * (ENTRY_OVERHEAD_BYTES + 1 + 23) + KEPT_BUFFER_NATIVE_BYTES,
      () => clock,
    );
    await cache.getMany(['a']);
    // 'a' is answered from memory here, so storing 'b' and 'c' evicts 'b' (answered never), not 'a' (older).
    expect(text(await cache.getMany(['a', 'b', 'c']))).toEqual([
      '{"urn":"a","price":100}',
      '{"urn":"b","price":100}',
      '{"urn":"c","price":100}',
    ]);
    await cache.getMany(['a']);
    expect(c.calls).toEqual([['a'], ['b', 'c']]);
    await cache.getMany(['b']);
    expect(c.calls).toEqual([['a'], ['b', 'c'], ['b']]);
    // Room for 'b' again was made by evicting 'c' (never answered), so 'a' still has its mark: when
    // 'd' comes, 'a' spends it and stays, and 'b', unanswered since it came back, goes.
    await cache.getMany(['d']);
    await cache.getMany(['a', 'b', 'd']);
    expect(c.calls).toEqual([['a'], ['b', 'c'], ['b'], ['d'], ['b']]);
  });

  it('with a TTL of 0 loads every time', async () => {
    const c = catalog(['a']);
    const cache = new JsonCache(
      c.load,
      () => 0,
      1_000_000,
      () => clock,
    );
    await cache.getMany(['a']);
    await cache.getMany(['a']);
    expect(c.calls).toEqual([['a'], ['a']]);
  });

  it('forgets a changed item at once: the next lookup reads it, long before the TTL', async () => {
    const c = catalog(['a', 'b']);
    const cache = new JsonCache(
      c.load,
      () => 60_000,
      1_000_000,
      () => clock,
    );
    await cache.getMany(['a', 'b']);
    c.reprice(250);
    cache.forget(['a']);
    expect(text(await cache.getMany(['a', 'b']))).toEqual(['{"urn":"a","price":250}', '{"urn":"b","price":100}']);
    expect(c.calls).toEqual([['a', 'b'], ['a']]);
    cache.clear();
    expect(text(await cache.getMany(['b']))).toEqual(['{"urn":"b","price":250}']);
  });

  it('never keeps a read that was in flight when its item changed', async () => {
    const c = catalog(['a']);
    const cache = new JsonCache(
      c.load,
      () => 1000,
      1_000_000,
      () => clock,
    );
    // A first read, forgotten while in flight: it answers its own lookup but is not kept.
    const first = cache.getMany(['a']);
    cache.forget(['a']);
    c.reprice(250);
    expect(text(await first)).toEqual(['{"urn":"a","price":100}']);
    expect(text(await cache.getMany(['a']))).toEqual(['{"urn":"a","price":250}']);
    // An expired item's refresh, forgotten while in flight: the refreshed value is not put back.
    clock = 1000;
    c.reprice(300);
    const during = cache.getMany(['a']);
    cache.forget(['a']);
    expect(text(await during)).toEqual(['{"urn":"a","price":250}']);
    await settle();
    c.reprice(400);
    expect(text(await cache.getMany(['a']))).toEqual(['{"urn":"a","price":400}']);
    expect(c.calls).toEqual([['a'], ['a'], ['a'], ['a']]);
  });
});
