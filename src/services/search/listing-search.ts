import type { DataSource } from 'typeorm';
import { Listing } from '../../db/entities';
import { toJsonBytes } from '../../json-bytes';
import type { ItemChanges } from '../catalog/discover-changes';
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
 * `POST /listings/item` as served: each distinct query's answer kept serialized per process
 * (`SearchCache`), versioned by its item: a change to any of the item's listings (heard from
 * the database's change notifications) makes every cached page of that item unreachable at
 * once. What is not notified (a seller's public profile figures on the hits) shows within
 * `cacheTtlMs`, and so does everything while notifications are down. Checkout re-checks stock.
 */
export class ListingSearch {
  private readonly pages: SearchCache<Buffer>;
  /** Item URN → the sequence number of its last heard change; absent: unchanged since the last reset. */
  private readonly versions = new Map<string, string>();
  private changes = 0;
  /** The version of items unchanged since the last reset. It only grows: a page read before a reset never matches after it. */
  private unchanged = '0';
  /** Slug → URN, for searches by slug; a catalog change may move a slug, so those drop it. */
  private readonly slugs = new Map<string, Promise<string | null>>();

  constructor(
    private readonly db: DataSource,
    changes: ItemChanges | undefined,
    cacheTtlMs: number,
  ) {
    this.pages = new SearchCache(cacheTtlMs, PAGES_KEPT);
    changes?.onChange(({ urns, catalog }) => {
      // Past this many changed items, forgetting everything is cheaper than remembering each.
      if (this.versions.size + urns.length > VERSIONS_KEPT) return this.reset();
      this.changes += 1;
      for (const urn of urns) this.versions.set(urn, String(this.changes));
      if (catalog) this.slugs.clear();
    });
    changes?.onReset(() => this.reset());
  }

  /** The page as JSON bytes (`toJsonBytes`). The query arrives normalised by the route's schema (defaults filled). */
  async search(query: ListingQuery): Promise<Buffer> {
    const urn = query.urn ?? (await this.urnOfSlug(query.slug!));
    const version = (urn !== null && this.versions.get(urn)) || this.unchanged;
    return this.pages.get(JSON.stringify(query), version, async () => toJsonBytes(await searchListings(this.db, query)));
  }

  private urnOfSlug(slug: string): Promise<string | null> {
    let urn = this.slugs.get(slug);
    if (!urn) {
      if (this.slugs.size >= PAGES_KEPT) this.slugs.clear();
      urn = this.db
        .query('SELECT urn FROM catalog_items WHERE slug = $1', [slug])
        .then((rows: Array<{ urn: string }>) => rows[0]?.urn ?? null);
      urn.catch(() => this.slugs.delete(slug));
      this.slugs.set(slug, urn);
    }
    return urn;
  }

  private reset(): void {
    this.changes += 1;
    this.unchanged = String(this.changes);
    this.pages.clear();
    this.versions.clear();
    this.slugs.clear();
  }
}

/** Pages of 20 hits are a few tens of kB: at most a few hundred MB, usually far less. */
const PAGES_KEPT = 5000;
const VERSIONS_KEPT = 100_000;
