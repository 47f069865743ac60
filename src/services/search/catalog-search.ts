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
 * Matching: full text (every word of `q` appears in the name, the title — which carries the set
 * name and number — the rarity or the number) OR trigram similarity of `q` to the name of at
 * least pg_trgm's threshold, 0.3 ("charzard" → Charizard scores 0.58).
 * Ranking: full-text rank (name words weigh most) plus name similarity, so exact words beat
 * near-misses and the closest spelling comes first among near-misses.
 */
const MATCH_SQL = `(i.search_vector @@ websearch_to_tsquery('simple', $1) OR i.name % $1)`;
const RANK_SQL = `(ts_rank(i.search_vector, websearch_to_tsquery('simple', $1)) + similarity(i.name, $1))`;
/** Cheapest live listing of `m.urn`: an index scan of listings_item_live_idx per item. */
const LOWEST_PRICE_SQL = `(SELECT min(l.price) FROM listings l JOIN seller_accounts sa ON sa.user_id = l.seller_id
                            WHERE l.item_urn = m.urn AND ${LIVE_LISTING_SQL})`;

/**
 * Price order needs each candidate's lowest live price, one index probe per item; over a broad
 * match ("rare": 36,000 items) that is seconds. So price sorting orders the PRICE_SORT_WINDOW
 * best matches (by relevance, or name without `q`) — every match of a set or a specific search.
 */
export const PRICE_SORT_WINDOW = 1000;

const relevanceOrder = (hasQuery: boolean) => (hasQuery ? `${RANK_SQL} DESC, i.name, i.urn` : 'i.name, i.urn');

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
  const from = `FROM catalog_items i ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`;
  const page = `LIMIT $${params.length + 1} OFFSET $${params.length + 2}`;
  const ranked = (order: string, limit: string) => `SELECT i.urn, i.name, count(*) OVER () AS total ${from} ORDER BY ${order} ${limit}`;
  const sql =
    query.sort === 'price'
      ? // Items with nothing for sale come last.
        `SELECT m.urn, m.total FROM (${ranked(relevanceOrder(Boolean(query.q)), `LIMIT ${PRICE_SORT_WINDOW}`)}) m
          ORDER BY ${LOWEST_PRICE_SQL} ASC NULLS LAST, m.name, m.urn ${page}`
      : ranked(query.sort === 'name' ? 'i.name, i.urn' : relevanceOrder(Boolean(query.q)), page);
  const rows: Array<{ urn: string; total: string }> = await db.query(sql, [...params, query.size, (query.page - 1) * query.size]);
  // A page past the end has no row to carry the window count; count separately only then.
  const total = rows.length ? Number(rows[0]!.total) : query.page > 1 ? Number((await db.query(`SELECT count(*) AS n ${from}`, params))[0].n) : 0;
  const items = await loadItems(db, rows.map((r) => r.urn));
  return {
    total,
    page: query.page,
    size: query.size,
    items: rows.map((r) => items.get(r.urn)).filter((i): i is ItemView => i !== undefined),
  };
}
