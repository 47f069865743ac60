import type { DataSource } from 'typeorm';
import type { ItemChanges } from '../catalog/discover-changes';
import type { JsonCache } from './json-cache';
import { loadItems, type ItemView } from '../catalog/item-view';
import { SearchCache } from '../listings/search-cache';

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

/** Whether a `total` is exact (`eq`) or the cap, with more matches beyond it (`gte`). */
export type TotalRelation = 'eq' | 'gte';

/**
 * Totals are counted exactly up to this many matches and reported as "at least this many" beyond
 * (docs/discover.md, "Totals"): counting every match of a broad query would cost what the matches
 * cost, whatever the page.
 */
export const TOTAL_CAP = 10_000;

export interface CatalogPage {
  total: number;
  totalRelation: TotalRelation;
  page: number;
  size: number;
  items: ItemView[];
}

/**
 * Matching: full text (every word of `q` appears in the name, the title — which carries the set
 * name and number — the rarity or the number) OR trigram similarity of `q` to the name of at
 * least pg_trgm's threshold, 0.3 ("charzard" → Charizard scores 0.58).
 * Similarity depends on the name alone, so it is tested against the distinct names
 * (`catalog_names`, hundreds of rows) and their items fetched by name: the same matches as testing
 * every item row, without rechecking the thousands of rows a trigram index can only nominate.
 * Ranking: full-text rank (name words weigh most) plus name similarity, so exact words beat
 * near-misses and the closest spelling comes first among near-misses.
 */
const MATCH_SQL = `(i.search_vector @@ websearch_to_tsquery('simple', $1)
                    OR i.name = ANY(ARRAY(SELECT n.name FROM catalog_names n WHERE n.name % $1)))`;
const RANK_SQL = `(ts_rank(i.search_vector, websearch_to_tsquery('simple', $1)) + similarity(i.name, $1))`;
const relevanceOrder = (hasQuery: boolean) => (hasQuery ? `${RANK_SQL} DESC, i.name, i.urn` : 'i.name, i.urn');

/** Which items a page shows, in order, and how many match in all. */
export interface Ranking {
  total: number;
  totalRelation: TotalRelation;
  urns: string[];
}

/**
 * One page of catalog items: the ranking, then the shared Item view (with its market data) for
 * that page only.
 */
export async function searchCatalog(db: DataSource, query: CatalogQuery, options: RankOptions = {}): Promise<CatalogPage> {
  const { total, totalRelation, urns } = await rankCatalog(db, query, options);
  const items = await loadItems(db, urns);
  return {
    total,
    totalRelation,
    page: query.page,
    size: query.size,
    items: urns.map((urn) => items.get(urn)).filter((i): i is ItemView => i !== undefined),
  };
}

interface RankOptions {
  probeMatchesUpTo?: number;
}

/** The ranking query: one page of URNs and the total. */
export async function rankCatalog(db: DataSource, query: CatalogQuery, options: RankOptions = {}): Promise<Ranking> {
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
  const page = `LIMIT $${params.length + 1} OFFSET $${params.length + 2}`;
  // Counting stops one past the cap: that one says whether more match than the cap.
  const n = Number(
    (await db.query(`SELECT count(*) AS n FROM (SELECT 1 FROM catalog_items i ${filter} LIMIT ${TOTAL_CAP + 1}) x`, params))[0].n,
  );
  const [total, totalRelation]: [number, TotalRelation] = n > TOTAL_CAP ? [TOTAL_CAP, 'gte'] : [n, 'eq'];
  let urns: string[];
  if (query.sort === 'price') {
    const probe = n <= (options.probeMatchesUpTo ?? PROBE_MATCHES_UP_TO);
    urns = offset >= n ? [] : await pricePage(db, { filter, where, params, page, probe, size: query.size, offset });
  } else {
    const order = query.sort === 'name' ? 'i.name, i.urn' : relevanceOrder(Boolean(query.q));
    // With a query the matches are collected first (both indexes, a bitmap) and then sorted. Left
    // to itself the planner walks the name index for a name sort and filters every row of the
    // catalog, since the window count needs them all: 140-290 ms instead of 2 on 100k items.
    const matches = query.q ? `(SELECT * FROM catalog_items i ${filter} OFFSET 0) i` : `catalog_items i ${filter}`;
    const rows: Array<{ urn: string }> = await db.query(`SELECT i.urn FROM ${matches} ORDER BY ${order} ${page}`, [
      ...params,
      query.size,
      offset,
    ]);
    urns = rows.map((r) => r.urn);
  }
  return { total, totalRelation, urns };
}

/**
 * `GET /search` as served: rankings kept per query, items from the shared item `JsonCache`,
 * the page written as JSON bytes around the items' own.
 *
 * A ranking by relevance or name depends on the catalog alone, so it is kept until a catalog
 * item changes; one by price depends on every item's lowest price, so it is kept until any
 * item's listings or market change. Both live at most `keepMs()` and are dropped whenever
 * changes may have gone unheard. Items are kept and forgotten by the item cache, so a page always shows
 * current prices and stock even when its ranking came from memory.
 */
export class CatalogSearch {
  private readonly byCatalog: SearchCache<Ranking>;
  private readonly byPrice: SearchCache<Ranking>;

  constructor(
    private readonly db: DataSource,
    private readonly items: JsonCache<ItemView>,
    changes: ItemChanges | undefined,
    keepMs: () => number,
  ) {
    this.byCatalog = new SearchCache(keepMs, RANKINGS_KEPT);
    this.byPrice = new SearchCache(keepMs, RANKINGS_KEPT);
    changes?.onChange(({ catalog }) => {
      this.byPrice.clear();
      if (catalog) this.byCatalog.clear();
    });
    changes?.onReset(() => {
      this.byPrice.clear();
      this.byCatalog.clear();
    });
  }

  /** The page as JSON bytes (`toJsonBytes`). The query arrives normalised by the route's schema (defaults filled). */
  async search(query: CatalogQuery): Promise<Buffer> {
    const rankings = query.sort === 'price' ? this.byPrice : this.byCatalog;
    const { total, totalRelation, urns } = await rankings.get(JSON.stringify(query), RANKING_VERSION, () => rankCatalog(this.db, query));
    const found = (await this.items.getMany(urns)).filter((json): json is Buffer => json !== null);
    const head = Buffer.from(`{"total":${total},"totalRelation":"${totalRelation}","page":${query.page},"size":${query.size},"items":[`);
    const parts: Buffer[] = [head];
    found.forEach((json, n) => parts.push(...(n === 0 ? [json] : [COMMA, json])));
    parts.push(CLOSE);
    return Buffer.concat(parts);
  }
}

/** Rankings are 20 URNs each: thousands fit in a few MB. */
const RANKINGS_KEPT = 10_000;
/** Rankings are dropped, not versioned. */
const RANKING_VERSION = '0';
const [COMMA, CLOSE] = [',', ']}'].map((s) => Buffer.from(s)) as [Buffer, Buffer];

/**
 * Up to this many matches are ordered by probing each one's market row; broader matches walk
 * item_market's price index instead. Either plan costs about as much as a few thousand index
 * probes: a selective match walking the price index would scan most of the catalog to fill a
 * page, and a broad one probing every match would too.
 */
export const PROBE_MATCHES_UP_TO = 5000;

/**
 * A page of matches by lowest live price (item_market), items with nothing for sale last by name:
 * by probing each match's market row (`probe`) or by walking the price index. The two plans
 * give the same page (test/api/search.test.ts compares them).
 */
async function pricePage(
  db: DataSource,
  q: { filter: string; where: string[]; params: unknown[]; page: string; probe: boolean; size: number; offset: number },
): Promise<string[]> {
  const urnsOf = (rows: Array<{ urn: string }>) => rows.map((r) => r.urn);
  if (q.probe) {
    return urnsOf(
      await db.query(
        `SELECT x.urn FROM (SELECT i.urn, i.name, (SELECT m.min_price FROM item_market m WHERE m.item_urn = i.urn) AS price
                              FROM catalog_items i ${q.filter}) x
          ORDER BY x.price ASC NULLS LAST, x.name, x.urn ${q.page}`,
        [...q.params, q.size, q.offset],
      ),
    );
  }
  // Broad: walk the price index; matches are dense enough that the page fills after a few rows.
  const priced = urnsOf(
    await db.query(
      `SELECT i.urn FROM item_market m JOIN catalog_items i ON i.urn = m.item_urn ${q.filter} ORDER BY m.min_price, i.name, i.urn ${q.page}`,
      [...q.params, q.size, q.offset],
    ),
  );
  if (priced.length === q.size) return priced;
  // Past the priced matches: the matches with nothing for sale, by name.
  const [{ n }] = await db.query(
    `SELECT count(*)::int AS n FROM item_market m JOIN catalog_items i ON i.urn = m.item_urn ${q.filter}`,
    q.params,
  );
  const unpriced = ['NOT EXISTS (SELECT 1 FROM item_market m WHERE m.item_urn = i.urn)', ...q.where];
  const rest = await db.query(`SELECT i.urn FROM catalog_items i WHERE ${unpriced.join(' AND ')} ORDER BY i.name, i.urn ${q.page}`, [
    ...q.params,
    q.size - priced.length,
    Math.max(0, q.offset - n),
  ]);
  return [...priced, ...urnsOf(rest)];
}
