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
 * bench host, and gathering and de-duplicating the candidates as much again: a few ms here,
 * where the 43,484 matches of "Recycle Energy" on the 1M catalog would cost about 170. Kept
 * small because every misspelling matches more than this on a big catalog (docs/discover.md,
 * "Why 300").
 */
export const RANK_MATCHES_UP_TO = 300;

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
  /**
   * false: a price order collects its matches even when they all carry a few names, instead of
   * merging those names' price walks (`walkNamesSql`).
   */
  walkNames?: boolean;
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
  const sort = query.q ? query.sort : query.sort === 'relevance' ? 'name' : query.sort;
  // A text query by price also learns, while counting, whether its matches carry only a few names.
  const byNames = Boolean(query.q) && sort === 'price' && options.walkNames !== false;
  // Counting stops one past the cap: that one says whether more match than the cap.
  const [{ n, others, names, whole }]: [{ n: number } & Partial<MatchNames>] = await db.query(
    query.q
      ? countTextSql(conditions, byNames)
      : `SELECT count(*)::int AS n FROM (SELECT 1 FROM catalog_search s ${where} LIMIT ${TOTAL_CAP + 1}) x`,
    params,
  );
  const [total, totalRelation]: [number, TotalRelation] = n > TOTAL_CAP ? [TOTAL_CAP, 'gte'] : [n, 'eq'];
  const offset = (query.page - 1) * query.size;
  // Past the last match; with more than the cap counted, deeper pages still read their matches.
  if (totalRelation === 'eq' && offset >= n) return { total, totalRelation, urns: [] };

  const pageParams: unknown[] = [...params, query.size, offset];
  const page = `LIMIT $${params.length + 1} OFFSET $${params.length + 2}`;
  const collect = n <= (options.collectMatchesUpTo ?? TOTAL_CAP);
  // Walking the names reads up to a page's depth of each: worth it when that is fewer than the matches.
  const walkable = names !== undefined && whole !== undefined && names.length * (offset + query.size) < n;
  let sql: string;
  if (walkable && others === 0) {
    // Every match carries one of these names: each name's first matches in price order, merged,
    // read fewer rows than collecting every match or walking the whole price order.
    pageParams.push(names, whole, offset + query.size);
    sql = walkNamesSql(conditions, pageParams.length, page);
  } else if (sort === 'relevance' && n > (options.rankMatchesUpTo ?? RANK_MATCHES_UP_TO)) {
    pageParams.push(Math.max(options.rankMatchesUpTo ?? RANK_MATCHES_UP_TO, offset + query.size));
    sql = `SELECT c.urn FROM (${candidatesSql(conditions, `$${pageParams.length}`)}) c ORDER BY c.rank DESC, c.name, c.urn ${page}`;
  } else if (sort === 'relevance' || collect) {
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

/** What counting a text query by price learns of its matches' names (`countTextSql`). */
interface MatchNames {
  /**
   * Full-text matches whose name is not in `names`; null when more than the cap match by text
   * alone, so the count cannot say.
   */
  others: number | null;
  /** Names similar to the query or whose own words match it, in name order. */
  names: string[];
  /** Per name: every item of it matches (its name is similar to the query). */
  whole: boolean[];
}

/**
 * The count of text query $1's matches under `conditions`, up to one past the cap. A match is an
 * item of a name similar to the query (every item of that name: `whole`) or a full-text match;
 * the two are counted apart. Without filters the similar names' items are counted from
 * `catalog_names.items` (migration 1733700000000), a row per name, instead of read; only the
 * full-text matches of other names are read, up to the cap.
 *
 * `withNames` (a query by price) adds the names a match is likely to carry (`MatchNames`): the
 * similar ones, and those whose own words match, most items of which do. With no match carrying
 * another name, the page can be read name by name (`walkNamesSql`). The names come from
 * catalog_names' few hundred rows, once.
 */
function countTextSql(conditions: string[], withNames: boolean): string {
  const filtered = conditions.map((c) => ` AND ${c}`).join('');
  const wholeNames = `ARRAY(SELECT name FROM names WHERE whole)`;
  const wordNames = `
              UNION ALL
              SELECT n.name, false, n.items FROM catalog_names n WHERE to_tsvector('simple', n.name) @@ websearch_to_tsquery('simple', $1)`;
  const wholeCount =
    conditions.length === 0
      ? `(SELECT coalesce(sum(items), 0) FROM names WHERE whole)`
      : `(SELECT count(*) FROM (SELECT 1 FROM catalog_search s WHERE s.name = ANY (${wholeNames})${filtered} LIMIT ${TOTAL_CAP + 1}) w)`;
  const namesOut = withNames
    ? `, ARRAY(SELECT name FROM names ORDER BY name) AS names, ARRAY(SELECT whole FROM names ORDER BY name) AS whole`
    : '';
  return `
    WITH names AS MATERIALIZED (
      SELECT c.name, bool_or(c.similar) AS whole, max(c.items) AS items
        FROM (SELECT n.name, true AS similar, n.items FROM catalog_names n WHERE n.name % $1${withNames ? wordNames : ''}) c
       GROUP BY c.name),
    texts AS (
      SELECT count(*)::int AS n, (count(*) FILTER (WHERE t.name <> ALL (ARRAY(SELECT name FROM names))))::int AS others
        FROM (SELECT s.name FROM catalog_search s
               WHERE ${TEXT_SQL} AND s.name <> ALL (${wholeNames})${filtered} LIMIT ${TOTAL_CAP + 1}) t)
    SELECT least(${wholeCount} + texts.n, ${TOTAL_CAP + 1})::int AS n,
           CASE WHEN texts.n <= ${TOTAL_CAP} THEN texts.others END AS others${namesOut}
      FROM texts`;
}

/**
 * A price-ordered page of a text query whose matches all carry the names of the parameter
 * before last but one (with `whole` in the one before last): each name's first matches in price
 * order, as many as the last parameter, walking `catalog_search_name_price_idx` (migration
 * 1733690000000) and stopping there, then merged into the page. Of a name every item of which
 * matches, the text condition is not evaluated.
 */
function walkNamesSql(conditions: string[], last: number, page: string): string {
  const filtered = conditions.map((c) => ` AND ${c}`).join('');
  return `
    SELECT w.urn FROM unnest($${last - 2}::text[], $${last - 1}::boolean[]) AS names(name, whole)
     CROSS JOIN LATERAL (SELECT s.urn, s.name, s.min_price FROM catalog_search s
                          WHERE s.name = names.name AND (names.whole OR ${TEXT_SQL})${filtered}
                          ORDER BY s.min_price, s.urn LIMIT $${last}) w
     ORDER BY w.min_price, w.name, w.urn ${page}`;
}
