import type { DataSource } from 'typeorm';
import { Listing } from '../../db/entities';
import type { FreshReads } from '../../db/read-router';
import { toJsonBytes } from '../../json-bytes';
import type { ItemChanges } from '../catalog/discover-changes';
import type { ListingQuery, ListingSort } from './listing-query';
import { SearchCache } from '../listings/search-cache';
import { ItemListings, renderPage } from './item-listings';
import type { HitViewCaches } from '../listings/listing-bytes';
import { toListingViews, type ListingView } from '../listings/listing-view';
import { LIVE_LISTING_SQL } from '../listings/visibility';
import { GROUP_NAMES, groupOf } from '../price-guide/condition-groups';
import { loadPriceGuides, type PriceGuideEntry } from '../price-guide/price-guide';
import type { JsonCache } from './json-cache';

/** A hit of listing search: the listing, and the price guide of its item in its condition group. */
export type ListingHit = ListingView & { priceGuide: PriceGuideEntry | null };

export interface ListingPage {
  total: number;
  hits: ListingHit[];
}

/** The key a hit's price guide entry is kept under in the cache: the item and the hit's condition group. */
export const priceGuideKey = (urn: string, condition: string) => `${urn} ${groupOf(condition)}`;

/** Every key an item's price guide entries may be kept under (one per condition group). */
export const priceGuideKeysOf = (urn: string) => GROUP_NAMES.map((group) => `${urn} ${group}`);

/** The item a `priceGuideKey` is of. */
export const urnOfPriceGuideKey = (key: string) => key.slice(0, key.lastIndexOf(' '));

/**
 * Loads price guide entries by `priceGuideKey`, every item of the batch in one query
 * (`loadPriceGuides`): a page of listing search reads its guide in one round trip at most.
 */
export async function loadPriceGuideEntries(db: DataSource, keys: string[]): Promise<Map<string, PriceGuideEntry>> {
  const guides = await loadPriceGuides(db, keys.map(urnOfPriceGuideKey));
  const entries = new Map<string, PriceGuideEntry>();
  for (const guide of guides.values()) for (const entry of guide.groups) entries.set(`${guide.urn} ${entry.group}`, entry);
  return entries;
}

const ORDER: Record<ListingSort, [string, 'ASC' | 'DESC']> = {
  price: ['l.price', 'ASC'],
  '-price': ['l.price', 'DESC'],
  newest: ['l.created_at', 'DESC'],
};

/**
 * Buyer listing search for one item. Visibility is LIVE_LISTING_SQL (in stock, not hidden,
 * valid, seller active and not on vacation). The page and its total come from one query; the
 * hits are then enriched with the shared listing view, without private fields, and the price
 * guide entry of each hit's condition group (one query for the page).
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
  const [views, guides] = await Promise.all([
    toListingViews(db, entities, { includePrivate: false }),
    loadPriceGuideEntries(
      db,
      entities.map((l) => priceGuideKey(l.itemUrn, l.condition)),
    ),
  ]);
  return {
    total,
    hits: views.map((view, n) => ({
      ...view,
      priceGuide: guides.get(priceGuideKey(entities[n]!.itemUrn, entities[n]!.condition)) ?? null,
    })),
  };
}

/**
 * `POST /listings/item` as served: each item's live listings kept serialized per process
 * (`ItemListings`), so any filter, sort and page of a kept item is answered from memory. Kept
 * per item in a `SearchCache`, versioned by the item: a change to any of its listings (heard
 * from the database's change notifications) makes the kept copy unreachable at once, so while
 * changes are heard a kept item lives until it changes (`keepMs`). The one part of a hit nothing
 * notifies, the seller's public profile figures, is spliced in at page time from a cache of its
 * own that keeps each seller for `cacheTtlMs`; everything falls back to `cacheTtlMs` while
 * notifications are down. Each hit's price guide entry is spliced in likewise, from `priceGuides`
 * (by item and condition group: a page needs at most three, read in one query when missing).
 * With the cache off, every search is one query and one for the guide.
 */
export class ListingSearch {
  private readonly items: SearchCache<ItemListings>;
  /** Item URN → the sequence number of its last heard change; absent: unchanged since the last reset. */
  private readonly versions = new Map<string, string>();
  private changes = 0;
  /** The version of items unchanged since the last reset. It only grows: a copy read before a reset never matches after it. */
  private unchanged = '0';
  /** Slug → URN, for searches by slug; a catalog change may move a slug, so those drop it. */
  private readonly slugs = new Map<string, Promise<string | null>>();

  constructor(
    /** Where each read goes: an item's listings where its changes are, slugs where the catalog's are. */
    private readonly reads: FreshReads,
    changes: ItemChanges | undefined,
    private readonly cacheTtlMs: number,
    /** How long a kept item's listings may live: until they change while changes are heard, `cacheTtlMs` otherwise. */
    keepMs: () => number,
    /** The memory budget of the kept items' listings, in bytes (`ItemListings.bytes`); popular items stay. */
    maxBytes: number,
    /**
     * Item views, shared with bulk lookup and catalog search (every hit of an item shows its
     * view), and seller summaries by user id, kept for `cacheTtlMs`; both shared with seller search.
     */
    private readonly views: HitViewCaches,
    /** Price guide entries by `priceGuideKey`, loaded by `loadPriceGuideEntries`: see `priceGuideCache`. */
    private readonly priceGuides: JsonCache<PriceGuideEntry>,
  ) {
    this.items = new SearchCache(keepMs, { bytes: maxBytes, sizeOf: (listings) => listings.bytes });
    changes?.onChange(({ urns, catalog }) => {
      // Past this many changed items, forgetting everything is cheaper than remembering each.
      if (this.versions.size + urns.length > VERSIONS_KEPT) return this.reset();
      this.changes += 1;
      for (const urn of urns) this.versions.set(urn, String(this.changes));
      if (catalog) this.slugs.clear();
    });
    changes?.onReset(() => this.reset());
  }

  /**
   * The page as JSON bytes (`toJsonBytes`), in pieces to be sent one after another (see
   * `renderPage`). The query arrives normalised by the route's schema (defaults filled).
   */
  async search(query: ListingQuery): Promise<Buffer[]> {
    if (this.cacheTtlMs <= 0) return [toJsonBytes(await searchListings(this.reads.all, query))];
    const urn = query.urn ?? (await this.urnOfSlug(query.slug!));
    if (urn === null) return [EMPTY_PAGE];
    const version = this.versions.get(urn) ?? this.unchanged;
    // The item's view is read beside its listings: a new item costs one round trip, not two.
    const [listings, [item]] = await Promise.all([
      this.items.get(urn, version, () => ItemListings.load(this.reads.items([urn]), urn)),
      this.views.items.getMany([urn]),
    ]);
    const { total, hits } = listings.select(query);
    const [sellers, guides] = await Promise.all([
      this.views.sellers.getMany(hits.map((hit) => hit.sellerId)),
      this.priceGuides.getMany(hits.map((hit) => priceGuideKey(urn, hit.condition))),
    ]);
    return renderPage(total, hits, item ?? null, sellers, guides);
  }

  private urnOfSlug(slug: string): Promise<string | null> {
    let urn = this.slugs.get(slug);
    if (!urn) {
      if (this.slugs.size >= SLUGS_KEPT) this.slugs.clear();
      urn = this.reads.catalog
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
    this.items.clear();
    this.versions.clear();
    this.slugs.clear();
  }
}

/** Slugs resolved to URNs: about 100 bytes each, so 20,000 keep a couple of MB. */
const SLUGS_KEPT = 20_000;
const VERSIONS_KEPT = 100_000;
/** What an item that does not resolve matches: nothing. */
const EMPTY_PAGE = toJsonBytes({ total: 0, hits: [] });
