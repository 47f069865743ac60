/** Buyer listing search of one item: what `POST /listings/item` asks, defaults filled. */
export type ListingSort = 'price' | '-price' | 'newest';

/** Exactly one of `urn` and `slug` (the route validates it). */
export type ListingQuery = ListingQueryOptions & ({ urn: string; slug?: undefined } | { slug: string; urn?: undefined });

interface ListingQueryOptions {
  filters: {
    condition?: string[];
    language?: string[];
    priceMin?: number;
    priceMax?: number;
    graded?: boolean;
    sellerId?: string;
  };
  sort: ListingSort;
  from: number;
  size: number;
}
