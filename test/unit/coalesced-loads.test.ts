import { coalesceLoads } from '../../src/services/search/coalesced-loads';

/** A loader that records every call and knows every key but 'x'. */
function recording() {
  const calls: string[][] = [];
  let fail = false;
  return {
    calls,
    failNext: () => (fail = true),
    load: async (keys: string[]) => {
      calls.push([...keys]);
      if (fail) {
        fail = false;
        throw new Error('db down');
      }
      return new Map(keys.filter((k) => k !== 'x').map((k) => [k, k.toUpperCase()]));
    },
  };
}

/** One turn of the event loop. */
const nextTurn = () => new Promise((r) => setImmediate(r));

describe('coalesceLoads', () => {
  it('reads the keys asked for in one turn with one call, and answers each caller its keys', async () => {
    const r = recording();
    const load = coalesceLoads(r.load, 100);
    const [first, second] = await Promise.all([load(['a', 'b']), load(['c', 'x'])]);
    expect(r.calls).toEqual([['a', 'b', 'c', 'x']]);
    expect(['a', 'b'].map((k) => first.get(k))).toEqual(['A', 'B']);
    expect(['c', 'x'].map((k) => second.get(k))).toEqual(['C', undefined]);
  });

  it('reads a later turn separately', async () => {
    const r = recording();
    const load = coalesceLoads(r.load, 100);
    const first = load(['a']);
    await nextTurn();
    const second = load(['b']);
    expect((await first).get('a')).toBe('A');
    expect((await second).get('b')).toBe('B');
    expect(r.calls).toEqual([['a'], ['b']]);
  });

  it('starts another call once a batch would pass maxKeys', async () => {
    const r = recording();
    const load = coalesceLoads(r.load, 3);
    const answers = await Promise.all([load(['a', 'b']), load(['c']), load(['d', 'e']), load(['f'])]);
    expect(r.calls).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e', 'f'],
    ]);
    expect(answers.map((found) => [...found.values()].join(''))).toEqual(['ABC', 'ABC', 'DEF', 'DEF']);
  });

  it('fails every caller of a failed batch, and reads the next turn again', async () => {
    const r = recording();
    const load = coalesceLoads(r.load, 100);
    r.failNext();
    const results = await Promise.allSettled([load(['a']), load(['b'])]);
    expect(results.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    expect((await load(['a'])).get('a')).toBe('A');
    expect(r.calls).toEqual([['a', 'b'], ['a']]);
  });
});
