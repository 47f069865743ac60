import type { DataSource } from 'typeorm';

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

/**
 * Relevance ranks every match up to this many; a broader query ranks a bounded candidate set
 * (`candidatesSql`). Ranking costs a `ts_rank` and a `similarity` per row, about 4 µs on the
 * bench host: 4 ms here, where the 43,484 matches of "Recycle Energy" on the 1M catalog would
 * cost about 170.
 */
export const RANK_MATCHES_UP_TO = 1_000;

/** Which items a page shows, in order, and how many match in all. */
export interface Ranking {
  total: number;
  totalRelation: TotalRelation;
  urns: string[];
}

/** Plan thresholds, for tests that compare the two plans of one order. */
export interface RankOptions {
  /** Up to this many matches are collected and sorted; more walk the order's index. */
  collectMatchesUpTo?: number;
  /** Up to this many matches are all ranked by relevance; more rank a candidate set. */
  rankMatchesUpTo?: number;
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
 *
 * Everything reads `catalog_search`, the narrow copy of the catalog kept in name order
 * (migration 1733670000000): a name's matches share pages.
 */
const TEXT_SQL = `s.search_vector @@ websearch_to_tsquery('simple', $1)`;
const SIMILAR_NAMES_SQL = `SELECT n.name FROM catalog_names n WHERE n.name % $1`;
const MATCH_SQL = `(${TEXT_SQL} OR s.name = ANY(ARRAY(${SIMILAR_NAMES_SQL})))`;
const RANK_SQL = `(ts_rank(s.search_vector, websearch_to_tsquery('simple', $1)) + similarity(s.name, $1))`;

/** Each order, ending in the URN so pages are stable; `price` is `catalog_search_price_idx`'s order. */
const ORDER = {
  relevance: `${RANK_SQL} DESC, s.name, s.urn`,
  name: 's.name, s.urn',
  price: 's.min_price, s.name, s.urn',
} as const;

/** The filters as SQL conditions on `s` and their parameters, after `q` as $1 when there is one. */
function filtersOf(query: CatalogQuery): { conditions: string[]; params: unknown[] } {
  const params: unknown[] = query.q ? [query.q] : [];
  const conditions: string[] = [];
  const filters: Array<[string | undefined, string]> = [
    [query.game, 's.game_urn'],
    [query.series, 's.series_urn'],
    [query.set, 's.set_urn'],
    [query.rarity?.toLowerCase(), 's.rarity_key'],
  ];
  for (const [value, column] of filters) {
    if (value === undefined) continue;
    params.push(value);
    conditions.push(`${column} = $${params.length}`);
  }
  return { conditions, params };
}

const whereOf = (conditions: string[]) => (conditions.length ? `WHERE ${conditions.join(' AND ')}` : '');

/**
 * The ranking of one page: the matches counted up to the cap, then the page's URNs. Every plan
 * reads at most the cap's matches, or walks an index in the page's order and stops once the page
 * is full.
 */
export async function rankCatalog(db: DataSource, query: CatalogQuery, options: RankOptions = {}): Promise<Ranking> {
  const { conditions, params } = filtersOf(query);
  const matching = query.q ? [MATCH_SQL, ...conditions] : conditions;
  const where = whereOf(matching);
  // Counting stops one past the cap: that one says whether more match than the cap.
  const [{ n }]: [{ n: number }] = await db.query(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM catalog_search s ${where} LIMIT ${TOTAL_CAP + 1}) x`,
    params,
  );
  const [total, totalRelation]: [number, TotalRelation] = n > TOTAL_CAP ? [TOTAL_CAP, 'gte'] : [n, 'eq'];
  const offset = (query.page - 1) * query.size;
  // Past the last match; with more than the cap counted, deeper pages still read their matches.
  if (totalRelation === 'eq' && offset >= n) return { total, totalRelation, urns: [] };

  const sort = query.q ? query.sort : query.sort === 'relevance' ? 'name' : query.sort;
  const pageParams = [...params, query.size, offset];
  const page = `LIMIT $${params.length + 1} OFFSET $${params.length + 2}`;
  let sql: string;
  if (sort === 'relevance' && n > (options.rankMatchesUpTo ?? RANK_MATCHES_UP_TO)) {
    pageParams.push(Math.max(options.rankMatchesUpTo ?? RANK_MATCHES_UP_TO, offset + query.size));
    sql = `SELECT c.urn FROM (${candidatesSql(conditions, `$${pageParams.length}`)}) c ORDER BY c.rank DESC, c.name, c.urn ${page}`;
  } else if (sort === 'relevance' || n <= (options.collectMatchesUpTo ?? TOTAL_CAP)) {
    // Up to the cap the matches are collected (the indexes' bitmap) and sorted: OFFSET 0 keeps
    // the planner from walking the order's index instead, which for a selective match would read
    // most of the catalog to fill a page.
    sql = `SELECT s.urn FROM (SELECT * FROM catalog_search s ${where} OFFSET 0) s ORDER BY ${ORDER[sort]} ${page}`;
  } else {
    // More matches than the cap, at least one row in a hundred of a million: walking the order's
    // index meets a page of them after a few thousand rows at most.
    sql = `SELECT s.urn FROM catalog_search s ${where} ORDER BY ${ORDER[sort]} ${page}`;
  }
  const rows: Array<{ urn: string }> = await db.query(sql, pageParams);
  return { total, totalRelation, urns: rows.map((r) => r.urn) };
}

/**
 * The candidates a broad relevance search ranks, `limit` of each kind: the items of the names most
 * similar to `q`, most similar name first (every item whose name is close enough to score among the
 * best is one of them), and the first full-text matches in the table's name order. With at most
 * `limit` matches of each kind this is every match, so ranking is exact; beyond, the best names'
 * items still come first, and among the rest the order is of the candidates only
 * (docs/discover.md, "Ranking").
 */
function candidatesSql(conditions: string[], limit: string): string {
  const filtered = conditions.map((c) => ` AND ${c}`).join('');
  // Ranked once per distinct candidate, after both branches are cut (a rank costs about 4 µs).
  // OFFSET 0 computes each name's similarity once, not per item.
  return `
    SELECT u.urn, u.name, ${RANK_SQL.replace(/\bs\./g, 'u.')} AS rank
      FROM (SELECT DISTINCT ON (b.urn) b.urn, b.name, b.search_vector
              FROM ((SELECT x.urn, x.name, x.search_vector
                       FROM (SELECT n.name, similarity(n.name, $1) AS sim FROM catalog_names n WHERE n.name % $1 OFFSET 0) names
                       CROSS JOIN LATERAL (SELECT s.urn, s.name, s.search_vector FROM catalog_search s
                                            WHERE s.name = names.name${filtered} ORDER BY s.urn LIMIT ${limit}) x
                      ORDER BY names.sim DESC, names.name, x.urn LIMIT ${limit})
                    UNION ALL
                    (SELECT s.urn, s.name, s.search_vector FROM catalog_search s WHERE ${TEXT_SQL}${filtered} LIMIT ${limit})) b
             ORDER BY b.urn) u`;
}
