import Koa from 'koa';
import { koaBody } from 'koa-body';
import { Pool } from 'pg';
import { LIVE_LISTING_SQL } from '../../src/services/listings/visibility';

/**
 * The baseline: a bare Koa app answering each benchmarked endpoint with ONE SQL statement through
 * `pg` and returning its rows as they come, with no validation, views or OpenAPI machinery.
 * Each statement computes what the real endpoint shows (items with set/series/game and live
 * listing aggregates; ranked search page; listing page with its item, seller and attachments).
 */
const ITEM_COLUMNS = `i.urn, i.slug, i.type, i.title, i.name, i.rarity, i.number, i.description, i.images, i.alternatives,
  i.metadata, g.name AS game, s.urn AS set_urn, s.name AS set_name, s.printed_count, s.total_count, s."references",
  s.size, s.symbol_url, s.released, sr.urn AS series_urn, sr.name AS series_name`;
const ITEM_JOINS = `JOIN catalog_sets s ON s.urn = i.set_urn JOIN catalog_series sr ON sr.urn = i.series_urn
  JOIN catalog_games g ON g.urn = i.game_urn`;
const LIVE_STATS = `SELECT min(l.price) AS min_price, max(l.price) AS max_price, sum(l.quantity - l.reserved)::int AS available,
  sum(l.quantity)::int AS quantity FROM listings l JOIN seller_accounts sa ON sa.user_id = l.seller_id
  WHERE l.item_urn = i.urn AND ${LIVE_LISTING_SQL}`;

const BULK_SQL = `
  SELECT ${ITEM_COLUMNS}, st.* FROM catalog_items i ${ITEM_JOINS}
    LEFT JOIN LATERAL (${LIVE_STATS}) st ON true
   WHERE i.urn = ANY($1::text[])
   ORDER BY array_position($1::text[], i.urn)`;

// The same match as the API (full text, or a name similar to q among the distinct names) on the
// same narrow table (catalog_search, migration 1733670000000), every match ranked and counted.
const SEARCH_SQL = `
  WITH page AS (
    SELECT s.urn, count(*) OVER () AS total,
           ts_rank(s.search_vector, websearch_to_tsquery('simple', $1)) + similarity(s.name, $1) AS rank
      FROM catalog_search s
     WHERE s.search_vector @@ websearch_to_tsquery('simple', $1)
        OR s.name = ANY(ARRAY(SELECT n.name FROM catalog_names n WHERE n.name % $1))
     ORDER BY rank DESC, s.name, s.urn LIMIT 20)
  SELECT page.total, ${ITEM_COLUMNS}, st.* FROM page JOIN catalog_items i ON i.urn = page.urn ${ITEM_JOINS}
    LEFT JOIN LATERAL (${LIVE_STATS}) st ON true
   ORDER BY page.rank DESC, i.name, i.urn`;

const LISTINGS_SQL = `
  WITH item AS (
    SELECT ${ITEM_COLUMNS}, st.* FROM catalog_items i ${ITEM_JOINS}
      LEFT JOIN LATERAL (${LIVE_STATS}) st ON true
     WHERE i.urn = $1)
  SELECT to_jsonb(item) AS item, l.id, l.seller_id, l.condition, l.price, l.language, l.created_at, l.updated_at, l.quantity, l.reserved,
         l.valid, l.hidden, l.variants, l.comment, l.grading_provider, l.grading_score, l.grading_number,
         count(*) OVER () AS total,
         u.username, u.reviews_count, u.rating_sum, u.sales_count, u.purchases_count, u.created_at AS joined,
         u.avatar_url, u.cover_url, u.profile,
         (SELECT coalesce(json_agg(json_build_object('id', a.id, 'imageId', a.image_id, 'url', a.url) ORDER BY a.position), '[]')
            FROM listing_attachments a WHERE a.listing_id = l.id) AS attachments
    FROM listings l JOIN seller_accounts sa ON sa.user_id = l.seller_id JOIN users u ON u.id = l.seller_id
    LEFT JOIN item ON item.urn = l.item_urn
   WHERE l.item_urn = $1 AND ${LIVE_LISTING_SQL}
   ORDER BY l.price, l.id LIMIT 20`;

export function createBaselineApp(databaseUrl: string, poolSize: number): { app: Koa; pool: Pool } {
  const pool = new Pool({ connectionString: databaseUrl, max: poolSize });
  const app = new Koa();
  app.use(koaBody());
  app.use(async (ctx) => {
    const body = ctx.request.body as { urns?: string[]; urn?: string };
    if (ctx.method === 'POST' && ctx.path === '/search/lookup/bulk') ctx.body = (await pool.query(BULK_SQL, [body.urns])).rows;
    else if (ctx.method === 'GET' && ctx.path === '/search') ctx.body = (await pool.query(SEARCH_SQL, [ctx.query.q])).rows;
    else if (ctx.method === 'POST' && ctx.path === '/listings/item') ctx.body = (await pool.query(LISTINGS_SQL, [body.urn])).rows;
  });
  return { app, pool };
}
