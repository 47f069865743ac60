/** Buyer listing search of one item: what `POST /listings/item` asks, defaults filled. */
export type ListingSort = 'price' | '-price' | 'newest';

export interface ListingQuery {
  /** Exactly one of `urn` and `slug` (the route validates it). */
  urn?: string;
  slug?: string;
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
