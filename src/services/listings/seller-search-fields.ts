import type { ListingView } from './listing-view';

/** The spec's facet keys, in the order responses list them. */
export const FACET_KEYS = [
  'Game',
  'Product Type',
  'Rarity',
  'Series',
  'Set',
  'Illustrator',
  'Condition',
  'Grading',
  'Price',
  'Quantity',
  'Valid',
  'Hidden',
  'Availability',
  'Category',
] as const;
export type FacetKey = (typeof FACET_KEYS)[number];
export type FacetValue = string | boolean;

/** Facets whose values are booleans; every other facet has string values. */
export const BOOLEAN_FACETS: readonly FacetKey[] = ['Valid', 'Hidden'];

/** Price buckets in pence: the facet value names its range. */
export const PRICE_BUCKETS = ['0-99', '100-499', '500-999', '1000-4999', '5000-9999', '10000+'] as const;
export const QUANTITY_BUCKETS = ['0', '1', '2-4', '5-9', '10+'] as const;

/**
 * Each facet as a SQL expression over `l` (listings), `i` (catalog_items), `s` (sets),
 * `sr` (series), `g` (games): the one statement of a listing's facet values. Item facets are
 * null for a listing whose URN is not in the catalog; nulls are not counted.
 */
export const FACET_SQL: Record<FacetKey, string> = {
  Game: 'g.name',
  'Product Type': 'i.type',
  Rarity: `nullif(i.rarity, '')`,
  Series: 'sr.name',
  Set: 's.name',
  Illustrator: `nullif(i.images->0->>'illustrator', '')`,
  Condition: 'l.condition',
  Grading: `coalesce(l.grading_provider, 'Ungraded')`,
  Price: `CASE WHEN l.price < 100 THEN '0-99' WHEN l.price < 500 THEN '100-499' WHEN l.price < 1000 THEN '500-999'
               WHEN l.price < 5000 THEN '1000-4999' WHEN l.price < 10000 THEN '5000-9999' ELSE '10000+' END`,
  Quantity: `CASE WHEN l.quantity = 0 THEN '0' WHEN l.quantity = 1 THEN '1' WHEN l.quantity < 5 THEN '2-4'
                  WHEN l.quantity < 10 THEN '5-9' ELSE '10+' END`,
  Valid: 'l.valid::text',
  Hidden: 'l.hidden::text',
  Availability: `CASE WHEN l.quantity > l.reserved THEN 'In Stock' ELSE 'Out of Stock' END`,
  Category: `CASE WHEN i.type IS NULL THEN NULL WHEN i.type = 'card' THEN 'Singles' ELSE 'Sealed' END`,
};

/**
 * Filterable listing fields: their kind and their SQL expression over `l` (listings), read when
 * the index is loaded. Dates are read as microseconds since the epoch (exact in a double), so
 * filters compare them at the database's own precision.
 */
export const FILTER_FIELDS = {
  price: { sql: 'l.price', kind: 'number' },
  quantity: { sql: 'l.quantity', kind: 'number' },
  available: { sql: '(l.quantity - l.reserved)', kind: 'number' },
  createdAt: { sql: '(extract(epoch FROM l.created_at) * 1000000)::float8', kind: 'date' },
  updatedAt: { sql: '(extract(epoch FROM l.updated_at) * 1000000)::float8', kind: 'date' },
  urn: { sql: 'l.item_urn', kind: 'string' },
  condition: { sql: 'l.condition', kind: 'string' },
  language: { sql: 'l.language', kind: 'string' },
  gradingProvider: { sql: 'l.grading_provider', kind: 'string' },
  reference: { sql: 'l.reference', kind: 'string' },
  notes: { sql: 'l.notes', kind: 'string' },
} as const;
export type FilterField = keyof typeof FILTER_FIELDS;

export const FILTER_OPS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** One `{field, op, value}` condition of a search; `in` takes a list. */
export interface SearchFilter {
  field: FilterField;
  op: FilterOp;
  value: string | number | Date | Array<string | number>;
}

export interface SellerSearchResult {
  total: number;
  hits: ListingView[];
  facets: Record<FacetKey, Array<{ value: FacetValue; count: number }>>;
}
