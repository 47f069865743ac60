/**
 * mulberry32: a small, fast, seeded generator of numbers in [0, 1). The same seed gives the
 * same sequence, so a random workload (a test's or a benchmark's) can be replayed from its seed.
 */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
