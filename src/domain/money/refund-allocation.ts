/**
 * How a refund is spread over what it refunds (docs/money.md "How much"): pure, so the refund
 * service and its tests share one rule.
 */

/** One thing a refund can be booked against, with how much of it is still refundable. */
export interface RefundBucket<K> {
  key: K;
  left: number;
}

/**
 * Splits `amount` pence over `buckets` in proportion to what each has left, in whole pence
 * (largest remainder; ties go to the earlier bucket), never more than a bucket's `left`.
 * Whatever the buckets cannot take (their `left` sums to less) is returned as `unallocated`.
 */
export function allocateRefund<K>(
  amount: number,
  buckets: Array<RefundBucket<K>>,
): { shares: Array<{ key: K; amount: number }>; unallocated: number } {
  const total = buckets.reduce((sum, b) => sum + Math.max(0, b.left), 0);
  const allocatable = Math.min(amount, total);
  if (allocatable <= 0) return { shares: [], unallocated: Math.max(0, amount) };
  const exact = buckets.map((b) => (allocatable * Math.max(0, b.left)) / total);
  const shares = buckets.map((b, i) => ({ key: b.key, amount: Math.floor(exact[i]!) }));
  let rest = allocatable - shares.reduce((sum, s) => sum + s.amount, 0);
  const byRemainder = exact.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of byRemainder) {
    if (rest === 0) break;
    if (shares[i]!.amount < buckets[i]!.left) {
      shares[i]!.amount += 1;
      rest -= 1;
    }
  }
  return { shares: shares.filter((s) => s.amount > 0), unallocated: amount - allocatable };
}
