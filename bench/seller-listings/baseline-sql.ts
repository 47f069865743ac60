import { facetSql, pageSql, searchWhere, type FacetKey } from '../../src/services/listings/seller-search';

/**
 * The baseline: the whole answer of `POST /seller/listings/search` — all fourteen facet
 * counts, the total and a page of 25 hits with their item, set and attachments — as ONE
 * SQL statement whose result is a single JSON row. Same WHERE as the service builds.
 */
export function baselineSql(sellerId: string, request: { query?: string; facets?: Partial<Record<FacetKey, string[]>> }) {
  const where = searchWhere(sellerId, { query: request.query, filters: [], facets: request.facets ?? {} });
  const limit = where.params.length + 1;
  const sql = `
    WITH facet_rows AS (${facetSql(where.sql)}),
         page AS (${pageSql(where.sql, limit)})
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
  return { sql, params: [...where.params, 25, 0] };
}
