import type { DataSource } from 'typeorm';
import { loadItems, type ItemView } from '../catalog/item-view';

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
const relevanceOrder = (hasQuery: boolean) => (hasQuery ? `${RANK_SQL} DESC, i.name, i.urn` : 'i.name, i.urn');

/**
 * One page of catalog items: a ranking query that yields URNs and the total, then the shared
 * Item view (with its market data) for that page only.
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
  const filter = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const offset = (query.page - 1) * query.size;
  const counted = `(SELECT count(*) FROM catalog_items i ${filter})`;
  const page = `LIMIT $${params.length + 1} OFFSET $${params.length + 2}`;
  let rows: Array<{ urn: string; total: string }>;
  if (query.sort === 'price') {
    // Matches with something for sale, by lowest live price: item_market's price index is walked
    // in order and the scan stops after the page, however broad the match.
    rows = await db.query(
      `SELECT i.urn, ${counted} AS total FROM item_market m JOIN catalog_items i ON i.urn = m.item_urn
        ${filter} ORDER BY m.min_price, i.name, i.urn ${page}`,
      [...params, query.size, offset],
    );
    if (rows.length < query.size) {
      // Past them: the matches with nothing for sale, by name.
      const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM item_market m JOIN catalog_items i ON i.urn = m.item_urn ${filter}`, params);
      const unpriced = ['NOT EXISTS (SELECT 1 FROM item_market m WHERE m.item_urn = i.urn)', ...where];
      rows.push(
        ...(await db.query(`SELECT i.urn, ${counted} AS total FROM catalog_items i WHERE ${unpriced.join(' AND ')} ORDER BY i.name, i.urn ${page}`, [
          ...params,
          query.size - rows.length,
          Math.max(0, offset - n),
        ])),
      );
    }
  } else {
    const order = query.sort === 'name' ? 'i.name, i.urn' : relevanceOrder(Boolean(query.q));
    rows = await db.query(`SELECT i.urn, count(*) OVER () AS total FROM catalog_items i ${filter} ORDER BY ${order} ${page}`, [...params, query.size, offset]);
  }
  // A page past the end has no row to carry the total; count separately only then.
  const total = rows.length ? Number(rows[0]!.total) : query.page > 1 ? Number((await db.query(`SELECT ${counted} AS n`, params))[0].n) : 0;
  const items = await loadItems(db, rows.map((r) => r.urn));
  return {
    total,
    page: query.page,
    size: query.size,
    items: rows.map((r) => items.get(r.urn)).filter((i): i is ItemView => i !== undefined),
  };
}
