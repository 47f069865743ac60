import { SearchCache } from '../../src/services/listings/search-cache';

function counter() {
  let calls = 0;
  return { compute: (tag: string) => async () => `${tag}#${++calls}`, calls: () => calls };
}

describe('SearchCache', () => {
  let clock = 0;
  const cache = () => new SearchCache<string>(1000, { entries: 10 }, () => clock);
  beforeEach(() => {
    clock = 0;
  });

  it('computes once per key and version, sharing concurrent misses', async () => {
    const c = cache();
    const n = counter();
    const results = await Promise.all([c.get('k', '1', n.compute('a')), c.get('k', '1', n.compute('a'))]);
    expect(results).toEqual(['a#1', 'a#1']);
    expect(await c.get('k', '1', n.compute('a'))).toBe('a#1');
    expect(n.calls()).toBe(1);
  });

  it('recomputes at once, and waits, when the version moves on', async () => {
    const c = cache();
    const n = counter();
    await c.get('k', '1', n.compute('a'));
    expect(await c.get('k', '2', n.compute('b'))).toBe('b#2');
    // A straggler that read the old version cannot put the old result back.
    await c.get('k', '1', n.compute('late'));
    expect(await c.get('k', '2', n.compute('c'))).toBe('b#2');
  });

  it('answers an expired entry while one refresh runs, then the refreshed value', async () => {
    const c = cache();
    const n = counter();
    await c.get('k', '1', n.compute('a'));
    clock = 5000;
    expect(await c.get('k', '1', n.compute('b'))).toBe('a#1');
    expect(await c.get('k', '1', n.compute('b'))).toBe('b#2');
    expect(n.calls()).toBe(2);
  });

  it('drops an entry whose refresh failed, so the next request waits for a new computation', async () => {
    const c = cache();
    await c.get('k', '1', async () => 'old');
    clock = 5000;
    expect(await c.get('k', '1', async () => Promise.reject(new Error('db down')))).toBe('old');
    await new Promise((r) => setImmediate(r));
    await expect(c.get('k', '1', async () => Promise.reject(new Error('still down')))).rejects.toThrow('still down');
    expect(await c.get('k', '1', async () => 'new')).toBe('new');
  });

  it('does not remember a failure', async () => {
    const c = cache();
    await expect(c.get('k', '1', async () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    expect(await c.get('k', '1', async () => 'ok')).toBe('ok');
  });

  it('keeps a key answered since eviction last passed it while one-off keys pass through', async () => {
    const c = cache();
    const n = counter();
    await c.get('popular', '1', n.compute('p'));
    for (let k = 0; k < 30; k += 1) {
      await c.get(`once-${k}`, '1', n.compute('o'));
      // Asked for again now and then, as a popular key is: it survives 30 one-off keys in a cache of 10.
      if (k % 5 === 0) expect(await c.get('popular', '1', n.compute('p'))).toBe('p#1');
    }
    expect(await c.get('popular', '1', n.compute('p'))).toBe('p#1');
    // One-off keys went, oldest first.
    expect(await c.get('once-0', '1', n.compute('again'))).toBe('again#32');
  });

  it('refreshes a changed entry once it is old enough, answering it meanwhile', async () => {
    const c = new SearchCache<string>(60_000, { entries: 10 }, () => clock);
    const n = counter();
    await c.get('k', '1', n.compute('a'));
    clock = 100;
    c.expire('k', 1000);
    // Younger than the minimum age: still answered, nothing recomputed.
    expect(await c.get('k', '1', n.compute('b'))).toBe('a#1');
    clock = 1000;
    expect(await c.get('k', '1', n.compute('b'))).toBe('a#1');
    expect(await c.get('k', '1', n.compute('c'))).toBe('b#2');
    // The refreshed entry lives for the full TTL again.
    clock = 30_000;
    expect(await c.get('k', '1', n.compute('d'))).toBe('b#2');
    expect(n.calls()).toBe(2);
  });

  it('does not trust a refresh that ran while a change arrived: it expires too', async () => {
    const c = new SearchCache<string>(60_000, { entries: 10 }, () => clock);
    await c.get('k', '1', async () => 'old');
    clock = 60_000;
    let finish: (v: string) => void = () => undefined;
    const slow = new Promise<string>((resolve) => (finish = resolve));
    expect(await c.get('k', '1', () => slow)).toBe('old');
    // The change commits while the refresh is reading; it may not have seen it.
    c.expire('k', 1000);
    finish('read before the change');
    await new Promise((r) => setImmediate(r));
    expect(await c.get('k', '1', async () => 'unused')).toBe('read before the change');
    clock = 61_000;
    expect(await c.get('k', '1', async () => 'after the change')).toBe('read before the change');
    expect(await c.get('k', '1', async () => 'unused')).toBe('after the change');
  });

  describe('bounded by bytes', () => {
    // Each value weighs its length: three of 40 do not fit in 100.
    const bytesCache = () => new SearchCache<string>(60_000, { bytes: 100, sizeOf: (v) => v.length }, () => clock);
    const value = (tag: string) => async () => tag.padEnd(40, '.');

    it('evicts what is not answered since eviction last passed it once the values outweigh the bound', async () => {
      const c = bytesCache();
      await c.get('a', '1', value('a'));
      await c.get('b', '1', value('b'));
      // Answered again: a is spared, b goes when c arrives.
      await c.get('a', '1', value('a again'));
      await c.get('c', '1', value('c'));
      expect(await c.get('a', '1', value('a recomputed'))).toBe(await value('a')());
      expect(await c.get('c', '1', value('c recomputed'))).toBe(await value('c')());
      expect(await c.get('b', '1', value('b recomputed'))).toBe(await value('b recomputed')());
    });

    it('keeps one value heavier than the whole bound rather than nothing', async () => {
      const c = bytesCache();
      const heavy = 'h'.repeat(500);
      await c.get('h', '1', async () => heavy);
      expect(await c.get('h', '1', async () => 'recomputed')).toBe(heavy);
    });

    it('stops counting what is deleted or replaced, and what failed never counted', async () => {
      const c = bytesCache();
      await c.get('a', '1', value('a'));
      await c.get('b', '1', value('b'));
      c.delete('a');
      // A newer version replaces b's entry: 40 bytes, not 80.
      await c.get('b', '2', value('b2'));
      await expect(c.get('x', '1', () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
      await new Promise((r) => setImmediate(r));
      // b2 and c weigh 80: both stay.
      await c.get('c', '1', value('c'));
      expect(await c.get('b', '2', value('b2 recomputed'))).toBe(await value('b2')());
      expect(await c.get('c', '1', value('c recomputed'))).toBe(await value('c')());
    });
  });

  it('computes every time when disabled', async () => {
    const c = new SearchCache<string>(0);
    const n = counter();
    await c.get('k', '1', n.compute('a'));
    await c.get('k', '1', n.compute('a'));
    expect(n.calls()).toBe(2);
  });
});
