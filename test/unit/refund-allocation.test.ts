import { allocateRefund } from '../../src/domain/money/refund-allocation';

describe('allocateRefund', () => {
  it('splits in proportion to what is left, in whole pence that add up to the amount', () => {
    expect(
      allocateRefund(100, [
        { key: 'a', left: 1000 },
        { key: 'b', left: 1000 },
        { key: 'c', left: 1000 },
      ]),
    ).toEqual({
      shares: [
        { key: 'a', amount: 34 },
        { key: 'b', amount: 33 },
        { key: 'c', amount: 33 },
      ],
      unallocated: 0,
    });
    expect(
      allocateRefund(150, [
        { key: 'line', left: 500 },
        { key: 'delivery', left: 0 },
      ]).shares,
    ).toEqual([{ key: 'line', amount: 150 }]);
  });

  it('never gives a bucket more than it has left, and returns what none could take', () => {
    expect(
      allocateRefund(700, [
        { key: 'a', left: 200 },
        { key: 'b', left: 300 },
      ]),
    ).toEqual({
      shares: [
        { key: 'a', amount: 200 },
        { key: 'b', amount: 300 },
      ],
      unallocated: 200,
    });
    expect(allocateRefund(50, [])).toEqual({ shares: [], unallocated: 50 });
  });

  it('holds for random amounts: sum equals min(amount, total left), each share within its bucket', () => {
    let seed = 7;
    const next = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
    for (let i = 0; i < 500; i += 1) {
      const buckets = Array.from({ length: 1 + next(5) }, (_, k) => ({ key: k, left: next(3000) }));
      const amount = next(8000);
      const { shares, unallocated } = allocateRefund(amount, buckets);
      const total = buckets.reduce((s, b) => s + b.left, 0);
      expect(shares.reduce((s, x) => s + x.amount, 0)).toBe(Math.min(amount, total));
      expect(unallocated).toBe(amount - Math.min(amount, total));
      for (const s of shares) expect(s.amount).toBeLessThanOrEqual(buckets[s.key]!.left);
    }
  });
});
