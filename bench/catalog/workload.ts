// Varied Discover workloads: every request is drawn from a distribution, so no two consecutive
// requests carry the same body. A workload is an endless stream of fresh draws from a seed: a
// run never replays a list it has already sent, so whatever a cache serves, it serves because
// the distribution repeats itself (popular items and queries), as real traffic does.
// Popularity follows Zipf's law over the catalog (a few cards are asked for far more often than
// the long tail); search draws real misspellings and real names; listing search varies filters,
// sorts and pages. A fixed seed makes every run (and every side of one run) draw the same requests.
import misspellings from '../../data/search/misspellings.json';
import { prng } from '../../test/support/random';
import { BENCH } from './settings';

export interface Draw {
  path: string;
  body?: string;
}

/** Index 0…n−1 with P(k) ∝ 1 / (k + 1)^s: rank 0 is the most popular. */
export function zipf(n: number, s: number, random: () => number): () => number {
  const cumulative = new Float64Array(n);
  let sum = 0;
  for (let k = 0; k < n; k += 1) cumulative[k] = sum += 1 / Math.pow(k + 1, s);
  return () => {
    const x = random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** Requests drawn from a seed: the same seed gives the same sequence. */
export type Workload = (seed: number) => () => Draw;

/** Endless draws in which no request equals the one before it; shared by all connections of a run. */
function stream(draw: () => Draw): () => Draw {
  let prev: Draw | undefined;
  return () => {
    let d = draw();
    while (prev && prev.path === d.path && prev.body === d.body) d = draw();
    prev = d;
    return d;
  };
}

/** The first `n` requests of a stream, to cycle through (`cycle`). */
export function take(next: () => Draw, n: number): Draw[] {
  return Array.from({ length: n }, next);
}

/** Cycles through a list; shared by all connections of a run, so consecutive requests differ. */
export function cycle(draws: Draw[]): () => Draw {
  let i = 0;
  return () => draws[i++ % draws.length]!;
}

const ZIPF_S = 1.0;

/** 200 distinct URNs per body, each drawn by popularity. */
export const bulkLookups =
  (itemsByPopularity: string[]): Workload =>
  (seed) => {
    const random = prng(seed);
    const rank = zipf(itemsByPopularity.length, ZIPF_S, random);
    return stream(() => {
      const urns = new Set<string>();
      while (urns.size < 200) urns.add(itemsByPopularity[rank()]!);
      return { path: '/search/lookup/bulk', body: JSON.stringify({ urns: [...urns] }) };
    });
  };

/**
 * Catalog search: two thirds real misspellings, one third real names (drawn by popularity),
 * mostly by relevance, sometimes sorted by price or name, a filter or a later page.
 */
export const searches =
  (namesByPopularity: string[]): Workload =>
  (seed) => {
    const random = prng(seed);
    const name = zipf(namesByPopularity.length, ZIPF_S, random);
    const typos = (misspellings as Array<[string, string]>).map(([typo]) => typo);
    const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
    return stream(() => {
      const q = random() < 2 / 3 ? pick(typos) : namesByPopularity[name()]!;
      const params = new URLSearchParams({ q });
      const r = random();
      if (r < 0.15) params.set('sort', 'price');
      else if (r < 0.25) params.set('sort', 'name');
      if (random() < 0.1) params.set('rarity', pick(['Rare Holo', 'Common', 'Uncommon', 'Rare']));
      if (random() < 0.2) params.set('page', String(2 + Math.floor(random() * 3)));
      return { path: `/search?${params}` };
    });
  };

const CONDITIONS = ['MINT', 'NEAR_MINT', 'EXCELLENT', 'GOOD', 'PLAYED'];
const LANGUAGES = ['en', 'ja', 'de', 'fr'];

/** Listing search of one item drawn by popularity (the popular item first), with varied filters and sorts. */
export const listingSearches =
  (itemsByPopularity: string[]): Workload =>
  (seed) => {
    const random = prng(seed);
    const items = [BENCH.popularUrn, ...itemsByPopularity.filter((u) => u !== BENCH.popularUrn)];
    const rank = zipf(items.length, ZIPF_S, random);
    const some = (xs: string[]) => xs.filter(() => random() < 0.5);
    return stream(() => {
      const filters: Record<string, unknown> = {};
      if (random() < 0.3) filters.condition = [...new Set([...some(CONDITIONS).slice(0, 3), 'NEAR_MINT'])];
      if (random() < 0.2) filters.language = [LANGUAGES[Math.floor(random() * LANGUAGES.length)]];
      if (random() < 0.2) {
        const min = 100 * Math.floor(random() * 100);
        filters.priceMin = min;
        filters.priceMax = min + 100 * (10 + Math.floor(random() * 100));
      }
      if (random() < 0.1) filters.graded = random() < 0.5;
      const r = random();
      const sort = r < 0.6 ? 'price' : r < 0.8 ? '-price' : 'newest';
      const from = random() < 0.2 ? 20 * (1 + Math.floor(random() * 3)) : 0;
      return { path: '/listings/item', body: JSON.stringify({ urn: items[rank()]!, filters, sort, from, size: 20 }) };
    });
  };
