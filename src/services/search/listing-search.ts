import type { DataSource } from 'typeorm';
import { Listing } from '../../db/entities';
import { toJsonBytes } from '../../json-bytes';
import { SearchCache } from '../listings/search-cache';
import { toListingViews, type ListingView } from '../listings/listing-view';
import { LIVE_LISTING_SQL } from '../listings/visibility';

export type ListingSort = 'price' | '-price' | 'newest';

export interface ListingQuery {
  /** Exactly one of `urn` and `slug` (the route validates it). */
  urn?: string;
  slug?: string;
  filters: {
    condition?: string[];
    language?: string[];
    priceMin?: number;
    priceMax?: number;
    graded?: boolean;
    sellerId?: string;
  };
  sort: ListingSort;
  from: number;
  size: number;
}

export interface ListingPage {
  total: number;
  hits: ListingView[];
}

const ORDER: Record<ListingSort, [string, 'ASC' | 'DESC']> = {
  price: ['l.price', 'ASC'],
  '-price': ['l.price', 'DESC'],
  newest: ['l.created_at', 'DESC'],
};

/**
 * Buyer listing search for one item. Visibility is LIVE_LISTING_SQL (in stock, not hidden,
 * valid, seller active and not on vacation). The page and its total come from one query; the
 * hits are then enriched with the shared listing view, without private fields.
 * An item that does not resolve simply matches nothing.
 */
export async function searchListings(db: DataSource, query: ListingQuery): Promise<ListingPage> {
  const qb = db
    .getRepository(Listing)
    .createQueryBuilder('l')
    .innerJoin('seller_accounts', 'sa', 'sa.user_id = l.seller_id')
    .where(LIVE_LISTING_SQL);
  if (query.urn !== undefined) qb.andWhere('l.item_urn = :urn', { urn: query.urn });
  else qb.andWhere('l.item_urn = (SELECT urn FROM catalog_items WHERE slug = :slug)', { slug: query.slug });

  const f = query.filters;
  if (f.condition?.length) qb.andWhere('l.condition IN (:...conditions)', { conditions: f.condition });
  if (f.language?.length) qb.andWhere('l.language IN (:...languages)', { languages: f.language });
  if (f.priceMin !== undefined) qb.andWhere('l.price >= :priceMin', { priceMin: f.priceMin });
  if (f.priceMax !== undefined) qb.andWhere('l.price <= :priceMax', { priceMax: f.priceMax });
  if (f.graded !== undefined) qb.andWhere(f.graded ? 'l.grading_provider IS NOT NULL' : 'l.grading_provider IS NULL');
  if (f.sellerId !== undefined) qb.andWhere('l.seller_id = :sellerId', { sellerId: f.sellerId });

  // The total is a scalar subquery over the same conditions: counted once, from the covering
  // index (listings_item_live_price_idx) rather than by a window over every matching row, so the
  // page itself can stop after `from + size` rows of the index order.
  const counted = qb.clone().select('count(*)').getQuery();
  const [column, direction] = ORDER[query.sort];
  qb.orderBy(column, direction).addOrderBy('l.id', 'ASC').offset(query.from).limit(query.size);
  const { entities, raw } = await qb.addSelect(`(${counted})`, 'total').getRawAndEntities<{ total: string }>();
  // A page past the end has no row to carry the total; count separately only then.
  const total = raw.length ? Number(raw[0]!.total) : query.from > 0 ? await qb.offset(0).limit(undefined).orderBy().getCount() : 0;
  return { total, hits: await toListingViews(db, entities, { includePrivate: false }) };
}

/**
 * `POST /listings/item` as served: each distinct query's answer kept serialized for a few
 * seconds per process (`SearchCache`, no version: expiry only), so a popular item's burst of
 * identical searches costs one query. The answer is public and sent with `max-age=30`, so this
 * adds no staleness the API has not already allowed shared caches; checkout re-checks stock.
 */
export class ListingSearch {
  private readonly pages: SearchCache<Buffer>;

  constructor(
    private readonly db: DataSource,
    cacheTtlMs: number,
  ) {
    this.pages = new SearchCache(cacheTtlMs);
  }

  /** The page as JSON bytes (`toJsonBytes`). The query arrives normalised by the route's schema (defaults filled). */
  search(query: ListingQuery): Promise<Buffer> {
    return this.pages.get(JSON.stringify(query), NO_VERSION, async () => toJsonBytes(await searchListings(this.db, query)));
  }
}

/** Listing search entries are not versioned: they live until they expire. */
const NO_VERSION = '0';
