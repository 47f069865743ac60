import type { DataSource } from 'typeorm';
import { loadItems, type ItemView } from '../catalog/item-view';
import { LIVE_LISTING_SQL } from '../listings/visibility';

export type SearchSort = 'relevance' | 'name' | 'price';

export interface CatalogQuery {
  q?: string;
  game?: string;
  series?: string;
  set?: string;
  rarity?: string;
  sort: SearchSort;
  page: number;
  size: number;
}

export interface CatalogPage {
  total: number;
  page: number;
  size: number;
  items: ItemView[];
}

/**
 * Matching: full-text (every word of `q` as a prefix-free token of name, title, rarity or number)
 * OR typo-tolerant (`q` has word similarity ≥ 0.6 with the title, e.g. "charzard" → Charizard).
 * Ranking: full-text rank (name words weigh most) plus word similarity, so exact words beat
 * near-misses and a near-miss still outranks nothing.
 */
const MATCH_SQL = `(i.search_vector @@ websearch_to_tsquery('simple', $1) OR $1 <% i.title)`;
const RANK_SQL = `(ts_rank(i.search_vector, websearch_to_tsquery('simple', $1)) + word_similarity($1, i.title))`;
/** Cheapest live listing: an index scan of listings_item_live_idx per item. */
const LOWEST_PRICE_SQL = `(SELECT min(l.price) FROM listings l JOIN seller_accounts sa ON sa.user_id = l.seller_id
                            WHERE l.item_urn = i.urn AND ${LIVE_LISTING_SQL})`;

const ORDER_BY: Record<SearchSort, (hasQuery: boolean) => string> = {
  relevance: (hasQuery) => (hasQuery ? `${RANK_SQL} DESC, i.name, i.urn` : 'i.name, i.urn'),
  name: () => 'i.name, i.urn',
  // Items with nothing for sale come last.
  price: () => `${LOWEST_PRICE_SQL} ASC NULLS LAST, i.name, i.urn`,
};

/**
 * One page of catalog items: a ranking query that yields URNs and the total, then the shared
 * Item view (with live-listing aggregates) for that page only.
 */
export async function searchCatalog(db: DataSource, query: CatalogQuery): Promise<CatalogPage> {
  // MATCH_SQL and RANK_SQL read the query text as $1.
  const params: unknown[] = query.q ? [query.q] : [];
  const where: string[] = query.q ? [MATCH_SQL] : [];
  const filters: Array<[string | undefined, string]> = [
    [query.game, 'i.game_urn'],
    [query.series, 'i.series_urn'],
    [query.set, 'i.set_urn'],
    [query.rarity, 'lower(i.rarity)'],
  ];
  for (const [value, column] of filters) {
    if (value === undefined) continue;
    params.push(column.startsWith('lower') ? value.toLowerCase() : value);
    where.push(`${column} = $${params.length}`);
  }
  params.push(query.size, (query.page - 1) * query.size);
  const rows: Array<{ urn: string; total: string }> = await db.query(
    `SELECT i.urn, count(*) OVER () AS total
       FROM catalog_items i
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY ${ORDER_BY[query.sort](Boolean(query.q))}
      LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  );
  const items = await loadItems(db, rows.map((r) => r.urn));
  return {
    total: rows.length ? Number(rows[0]!.total) : 0,
    page: query.page,
    size: query.size,
    items: rows.map((r) => items.get(r.urn)).filter((i): i is ItemView => i !== undefined),
  };
}
