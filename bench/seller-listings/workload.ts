// Varied seller searches: what a seller's back office sends while working through a large stock.
// Every request is drawn afresh from a seed (no two consecutive requests are equal), so whatever
// the answer cache serves, it serves because the distribution repeats itself.
//   - facets: 0–3 facets selected (none in a quarter of requests), each with 1–2 values; facets
//     and values drawn by popularity (Zipf), from the values the bench's listings have;
//   - text: a third of requests carry a query, a Pokémon name (by popularity) or one SKU;
//   - filters (mix): a fifth carry a price, stock or date filter; the filters workload always does;
//   - pages: mostly the first, sometimes one of the next four.
import { prng } from '../../test/support/random';
import { zipf, type Draw, type Workload } from '../catalog/workload';

export const NAMES = ['Charizard', 'Pikachu', 'Blastoise', 'Venusaur', 'Mewtwo', 'Gengar', 'Alakazam', 'Dragonite'];

/** Facets by how often a seller narrows by them, each with its values by popularity. */
const FACETS: Array<[string, Array<string | boolean>]> = [
  ['Condition', ['NEAR_MINT', 'MINT', 'EXCELLENT', 'GOOD', 'LIGHT_PLAYED', 'PLAYED', 'POOR']],
  ['Availability', ['In Stock', 'Out of Stock']],
  ['Price', ['1000-4999', '100-499', '500-999', '5000-9999', '10000+', '0-99']],
  ['Rarity', ['Rare Holo', 'Ultra Rare', 'Rare', 'Uncommon', 'Common']],
  ['Set', Array.from({ length: 40 }, (_, n) => `Set ${n + 1}`)],
  ['Valid', [false, true]],
  ['Hidden', [true, false]],
  ['Quantity', ['0', '1', '2-4', '5-9', '10+']],
  ['Grading', ['PSA', 'Ungraded']],
  ['Series', ['Series 1', 'Series 2', 'Series 3', 'Series 4']],
  ['Illustrator', ['Ken Sugimori', 'Mitsuhiro Arita', 'Kagemaru Himeno', '5ban Graphics']],
  ['Category', ['Singles', 'Sealed']],
  ['Product Type', ['card', 'sealed']],
  ['Game', ['Pokémon']],
];

type Filter = { field: string; op: string; value: unknown };

function filters(random: () => number): Filter[] {
  const pence = () => Math.round(50 + random() * 20_000);
  const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString();
  const all: Array<() => Filter> = [
    () => ({ field: 'price', op: random() < 0.5 ? 'lt' : 'gte', value: pence() }),
    () => ({ field: 'available', op: 'eq', value: 0 }),
    () => ({ field: 'quantity', op: 'gt', value: Math.floor(random() * 10) }),
    () => ({ field: 'createdAt', op: 'gte', value: daysAgo(random() * 2) }),
    () => ({ field: 'condition', op: 'in', value: ['MINT', 'NEAR_MINT'] }),
  ];
  return Array.from({ length: 1 + Math.floor(random() * 2) }, () => all[Math.floor(random() * all.length)]!());
}

function stream(draw: () => Draw): () => Draw {
  let prev: string | undefined;
  return () => {
    let d = draw();
    while (d.body === prev) d = draw();
    prev = d.body;
    return d;
  };
}

/** Seller searches; `withFilters`: every request carries 1–2 filters (the share applied in SQL). */
export const sellerSearches =
  (withFilters: boolean): Workload =>
  (seed) => {
    const random = prng(seed);
    const facet = zipf(FACETS.length, 1.0, random);
    const name = zipf(NAMES.length, 1.0, random);
    return stream(() => {
      const selected: Record<string, Array<string | boolean>> = {};
      const count = random() < 0.25 ? 0 : 1 + Math.floor(random() * 3);
      while (Object.keys(selected).length < count) {
        const [key, values] = FACETS[facet()]!;
        const value = zipf(values.length, 1.0, random);
        selected[key] = [...new Set(Array.from({ length: 1 + Math.floor(random() * 2) }, () => values[value()]!))];
      }
      const body: Record<string, unknown> = { facets: selected, size: 25, from: random() < 0.8 ? 0 : 25 * (1 + Math.floor(random() * 4)) };
      if (random() < 1 / 3) body.query = random() < 0.8 ? NAMES[name()]!.toLowerCase() : `sku-${1 + Math.floor(random() * 50_000)}`;
      if (withFilters || random() < 0.2) body.filters = filters(random);
      return { path: '/seller/listings/search', body: JSON.stringify(body) };
    });
  };

/** The share of requests in the first `n` of a stream that repeat an earlier body. */
export function repeatShare(next: () => Draw, n: number): number {
  const seen = new Set<string>();
  let repeats = 0;
  for (let i = 0; i < n; i++) {
    const { body } = next();
    if (seen.has(body!)) repeats++;
    else seen.add(body!);
  }
  return repeats / n;
}
