import type { DataSource } from 'typeorm';
import { toJsonBytes } from '../../json-bytes';
import { readSellerStatsVersion } from '../sellers/stats-version';
import { SearchCache } from './search-cache';
import { loadListingViews, type ListingView } from './listing-view';

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
 * `sr` (series), `g` (games). Item facets are null for a listing whose URN is not in the
 * catalog; nulls are not counted.
 */
const FACET_SQL: Record<FacetKey, string> = {
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

/** Filterable listing fields, their column and value kind. */
export const FILTER_FIELDS = {
  price: { sql: 'l.price', kind: 'number' },
  quantity: { sql: 'l.quantity', kind: 'number' },
  available: { sql: '(l.quantity - l.reserved)', kind: 'number' },
  createdAt: { sql: 'l.created_at', kind: 'date' },
  updatedAt: { sql: 'l.updated_at', kind: 'date' },
  urn: { sql: 'l.item_urn', kind: 'string' },
  condition: { sql: 'l.condition', kind: 'string' },
  language: { sql: 'l.language', kind: 'string' },
  gradingProvider: { sql: 'l.grading_provider', kind: 'string' },
  reference: { sql: 'l.reference', kind: 'string' },
  notes: { sql: 'l.notes', kind: 'string' },
} as const;
export type FilterField = keyof typeof FILTER_FIELDS;

export const FILTER_OPS = { eq: '=', ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=', in: 'IN' } as const;
export type FilterOp = keyof typeof FILTER_OPS;

export interface SearchFilter {
  field: FilterField;
  op: FilterOp;
  value: string | number | Date | Array<string | number>;
}

export interface SellerSearchRequest {
  query?: string;
  filters: SearchFilter[];
  facets: Partial<Record<FacetKey, FacetValue[]>>;
  from: number;
  size: number;
}

export interface SellerSearchResult {
  total: number;
  hits: ListingView[];
  facets: Record<FacetKey, Array<{ value: FacetValue; count: number }>>;
}

const JOINS = `
  LEFT JOIN catalog_items i ON i.urn = l.item_urn
  LEFT JOIN catalog_sets s ON s.urn = i.set_urn
  LEFT JOIN catalog_series sr ON sr.urn = i.series_urn
  LEFT JOIN catalog_games g ON g.urn = i.game_urn`;

/** Escapes LIKE metacharacters so a query is matched literally. */
const likeLiteral = (word: string) => `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Builds the WHERE clause. The seller scope is the first condition and comes from the
 * authenticated principal only; facets and filters can narrow it, never widen or replace it
 * (there is no seller facet or filter to send).
 */
export function searchWhere(sellerId: string, req: Omit<SellerSearchRequest, 'from' | 'size'>): { sql: string; params: unknown[] } {
  const params: unknown[] = [sellerId];
  const param = (v: unknown) => `$${params.push(v)}`;
  const conditions = ['l.seller_id = $1', 'l.deleted_at IS NULL'];
  for (const word of (req.query ?? '').toLowerCase().split(/\s+/).filter(Boolean)) {
    conditions.push(`l.search_text LIKE ${param(likeLiteral(word))}`);
  }
  for (const f of req.filters) {
    const column = FILTER_FIELDS[f.field].sql;
    if (f.op === 'in') conditions.push(`${column}::text = ANY(${param((f.value as unknown[]).map(String))}::text[])`);
    else conditions.push(`${column} ${FILTER_OPS[f.op]} ${param(f.value)}`);
  }
  for (const key of FACET_KEYS) {
    const selected = req.facets[key];
    if (selected && selected.length > 0) conditions.push(`(${FACET_SQL[key]}) = ANY(${param(selected.map(String))}::text[])`);
  }
  return { sql: conditions.join(' AND '), params };
}

/**
 * Facet counts and the total in one pass over the matching listings: one GROUPING SETS
 * query, one set per facet plus the empty set (the total). Counts describe the current result
 * (every selected facet and filter applied).
 */
export function facetSql(where: string): string {
  const columns = FACET_KEYS.map((k, n) => `(${FACET_SQL[k]}) AS f${n}`).join(', ');
  const refs = FACET_KEYS.map((_, n) => `f${n}`);
  return `
    WITH matching AS (SELECT ${columns} FROM listings l ${JOINS} WHERE ${where})
    SELECT GROUPING(${refs.join(', ')})::int AS grouping_mask, ${refs.join(', ')}, count(*)::int AS count
      FROM matching
     GROUP BY GROUPING SETS (${refs.map((r) => `(${r})`).join(', ')}, ())`;
}

export function pageSql(where: string, limitParam: number): string {
  return `SELECT l.id FROM listings l ${JOINS} WHERE ${where}
          ORDER BY l.created_at DESC, l.id DESC LIMIT $${limitParam} OFFSET $${limitParam + 1}`;
}

type FacetRow = { grouping_mask: number; count: number } & Record<string, string | null>;

function readFacets(rows: FacetRow[]): { total: number; facets: SellerSearchResult['facets'] } {
  const facets = Object.fromEntries(
    FACET_KEYS.map((k) => [k, [] as Array<{ value: FacetValue; count: number }>]),
  ) as SellerSearchResult['facets'];
  const all = (1 << FACET_KEYS.length) - 1;
  let total = 0;
  for (const row of rows) {
    if (row.grouping_mask === all) {
      total = row.count;
      continue;
    }
    // GROUPING() sets a bit for every column not grouped in this row; the cleared bit (first
    // argument = most significant) names the facet.
    const n = FACET_KEYS.findIndex((_, i) => (row.grouping_mask & (1 << (FACET_KEYS.length - 1 - i))) === 0);
    const key = FACET_KEYS[n]!;
    const value = row[`f${n}`];
    if (value === null || value === undefined) continue;
    facets[key].push({ value: BOOLEAN_FACETS.includes(key) ? value === 'true' : value, count: row.count });
  }
  for (const key of FACET_KEYS) facets[key].sort((a, b) => b.count - a.count || String(a.value).localeCompare(String(b.value)));
  return { total, facets };
}

/** Memory for one facet query: enough for every grouping set to hash (no sorts spilling to disk). */
const FACET_WORK_MEM = '32MB';

/**
 * `POST /seller/listings/search`: the caller's listings, facet counts and a page of hits.
 * Answers are cached (see `SearchCache`) per (seller, request, page) and keyed by the seller's
 * listings version, so a listing write of the seller shows in the next search. Facet counts are
 * cached apart from pages (keyed without `from`/`size`), so paging through a result counts its
 * facets once. A hit costs one version read and no serialization: answers are kept as JSON bytes (`toJsonBytes`).
 */
export class SellerSearch {
  private readonly facets: SearchCache<{ total: number; facets: SellerSearchResult['facets'] }>;
  private readonly pages: SearchCache<Buffer>;

  constructor(
    private readonly db: DataSource,
    cacheTtlMs: number,
  ) {
    this.facets = new SearchCache(cacheTtlMs);
    this.pages = new SearchCache(cacheTtlMs);
  }

  /** The spec's search result (`SellerSearchResult`) as JSON bytes (`toJsonBytes`). */
  async search(sellerId: string, req: SellerSearchRequest): Promise<Buffer> {
    const version = await readSellerStatsVersion(this.db, sellerId);
    const key = JSON.stringify([sellerId, req.query ?? '', req.filters, req.facets]);
    return this.pages.get(`${key}:${req.from}:${req.size}`, version, async () => {
      const where = searchWhere(sellerId, req);
      const [counted, rows] = await Promise.all([
        this.facets.get(key, version, () => this.countFacets(where)),
        this.db.query(pageSql(where.sql, where.params.length + 1), [...where.params, req.size, req.from]) as Promise<Array<{ id: string }>>,
      ]);
      const hits = await loadListingViews(
        this.db,
        rows.map((r) => r.id),
        { includePrivate: true },
      );
      const result: SellerSearchResult = { total: counted.total, hits, facets: counted.facets };
      return toJsonBytes(result);
    });
  }

  private countFacets(where: { sql: string; params: unknown[] }) {
    return this.db.transaction(async (tx) => {
      await tx.query(`SET LOCAL work_mem = '${FACET_WORK_MEM}'`);
      return readFacets(await tx.query(facetSql(where.sql), where.params));
    });
  }
}
