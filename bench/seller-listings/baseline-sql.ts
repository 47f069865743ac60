import { FACET_KEYS, FACET_SQL, type FacetKey, type SearchFilter } from '../../src/services/listings/seller-search-fields';

// The baseline is seller search as it was before the in-memory index (2026-11-26): the whole
// answer — all fourteen facet counts by GROUPING SETS, the total and a page of 25 hits with their
// item, set and attachments — as ONE SQL statement whose result is a single JSON row. Kept here,
// frozen, so every run compares the service with the same query.

export interface BaselineRequest {
  query?: string;
  filters?: SearchFilter[];
  facets?: Partial<Record<FacetKey, string[]>>;
  from?: number;
}

const FILTER_SQL: Record<SearchFilter['field'], string> = {
  price: 'l.price',
  quantity: 'l.quantity',
  available: '(l.quantity - l.reserved)',
  createdAt: 'l.created_at',
  updatedAt: 'l.updated_at',
  urn: 'l.item_urn',
  condition: 'l.condition',
  language: 'l.language',
  gradingProvider: 'l.grading_provider',
  reference: 'l.reference',
  notes: 'l.notes',
};
const OPS = { eq: '=', ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

const JOINS = `
  LEFT JOIN catalog_items i ON i.urn = l.item_urn
  LEFT JOIN catalog_sets s ON s.urn = i.set_urn
  LEFT JOIN catalog_series sr ON sr.urn = i.series_urn
  LEFT JOIN catalog_games g ON g.urn = i.game_urn`;

const likeLiteral = (word: string) => `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function searchWhere(sellerId: string, req: BaselineRequest, params: unknown[]): string {
  params.push(sellerId);
  const param = (v: unknown) => `$${params.push(v)}`;
  const conditions = ['l.seller_id = $1', 'l.deleted_at IS NULL'];
  for (const word of (req.query ?? '').toLowerCase().split(/\s+/).filter(Boolean)) {
    conditions.push(`l.search_text LIKE ${param(likeLiteral(word))}`);
  }
  for (const f of req.filters ?? []) {
    const column = FILTER_SQL[f.field];
    if (f.op === 'in') conditions.push(`${column}::text = ANY(${param((f.value as unknown[]).map(String))}::text[])`);
    else conditions.push(`${column} ${OPS[f.op]} ${param(f.value)}`);
  }
  for (const key of FACET_KEYS) {
    const selected = req.facets?.[key];
    if (selected && selected.length > 0) conditions.push(`(${FACET_SQL[key]}) = ANY(${param(selected.map(String))}::text[])`);
  }
  return conditions.join(' AND ');
}

function facetSql(where: string): string {
  const columns = FACET_KEYS.map((k, n) => `(${FACET_SQL[k]}) AS f${n}`).join(', ');
  const refs = FACET_KEYS.map((_, n) => `f${n}`);
  return `
    WITH matching AS (SELECT ${columns} FROM listings l ${JOINS} WHERE ${where})
    SELECT GROUPING(${refs.join(', ')})::int AS grouping_mask, ${refs.join(', ')}, count(*)::int AS count
      FROM matching
     GROUP BY GROUPING SETS (${refs.map((r) => `(${r})`).join(', ')}, ())`;
}

export function baselineSql(sellerId: string, request: BaselineRequest) {
  const params: unknown[] = [];
  const where = searchWhere(sellerId, request, params);
  const limit = params.length + 1;
  const sql = `
    WITH facet_rows AS (${facetSql(where)}),
         page AS (SELECT l.id FROM listings l ${JOINS} WHERE ${where}
                  ORDER BY l.created_at DESC, l.id DESC LIMIT $${limit} OFFSET $${limit + 1})
    SELECT (SELECT json_agg(facet_rows) FROM facet_rows) AS facets,
           (SELECT json_agg(hit) FROM (
              SELECT l.*, i.name, i.title, i.rarity, s.name AS set_name, sr.name AS series_name, g.name AS game,
                     (SELECT coalesce(json_agg(json_build_object('id', a.id, 'url', a.url)), '[]')
                        FROM listing_attachments a WHERE a.listing_id = l.id) AS attachments
                FROM page JOIN listings l ON l.id = page.id
                LEFT JOIN catalog_items i ON i.urn = l.item_urn
                LEFT JOIN catalog_sets s ON s.urn = i.set_urn
                LEFT JOIN catalog_series sr ON sr.urn = i.series_urn
                LEFT JOIN catalog_games g ON g.urn = i.game_urn
               ORDER BY l.created_at DESC, l.id DESC) hit) AS hits`;
  return { sql, params: [...params, 25, request.from ?? 0] };
}
