import type { DataSource } from 'typeorm';
import { toJsonBytes } from '../../json-bytes';
import type { ItemChanges } from '../catalog/discover-changes';
import { readSellerStatsVersion } from '../sellers/stats-version';
import { SearchCache } from './search-cache';
import { cutAroundItemAndSeller, totalAndHits, type HitViewCaches } from './listing-bytes';
import { loadListingRows, toListingViews } from './listing-view';
import type { FacetKey, FacetValue, SearchFilter } from './seller-search-fields';
import { queryWords, SellerListingIndex } from './seller-listing-index';

export interface SellerSearchRequest {
  query?: string;
  filters: SearchFilter[];
  facets: Partial<Record<FacetKey, FacetValue[]>>;
  from: number;
  size: number;
}

/**
 * Indexes kept per process (one per seller, the most recently searched). An index costs about
 * 380 bytes per listing (measured with 31 characters of search text each): some 19 MB for a
 * seller with 50,000 listings.
 */
const INDEXED_SELLERS = 32;

/**
 * Whole answers kept per process. An answer is 35 kB for a page of 25 hits and up to four times
 * that for 100, so this bounds them at about 7 MB (28 MB at the largest pages).
 */
const ANSWERS_KEPT = 200;

export interface SellerSearchOptions {
  /** SELLER_SEARCH_CACHE_MS: how long an answer lives, and how stale stock moved by checkouts may be. 0: nothing is kept. */
  ttlMs: number;
  /** How long an index lives: the TTL, or much longer while `changes` are heard. */
  keepIndexMs: () => number;
  /** The database's item change notifications (`DiscoverChangeListener`), when they are listened to. */
  changes?: ItemChanges;
  /** Discover's item views and seller summaries: a hit's item and seller are spliced in from these rather than read per answer. */
  views: HitViewCaches;
  /**
   * Where the index and the page may be read: a database that has everything committed before
   * the call (a replica that has replayed it, else the primary; `ReadRouter.caughtUp`). Unset:
   * the primary.
   */
  caughtUp?: () => Promise<DataSource>;
}

/**
 * `POST /seller/listings/search`: the caller's listings, facet counts and a page of hits.
 *
 * Matching (query, facets and filters), counting and paging run over an in-memory index of the
 * seller's listings (`SellerListingIndex`); only the version and the page's listings are read per
 * answer. Each hit's item view and the seller's summary come from Discover's caches
 * (`options.views`): item views are kept until the database notifies a change to the item, the
 * summary (rating, sales) for DISCOVER_CACHE_MS, as buyers see it in listing search.
 *
 * Indexes and whole answers are cached (`SearchCache`) under the seller's listings version, so
 * a listing write by the seller shows in the next search in every process. What bumps no version
 * (stock held by checkouts, catalog edits) shows within the TTL plus one index load: an index is
 * reloaded when the database notifies a change to an item it lists, at most once per TTL, and
 * every TTL while notifications are not heard. A TTL of 0 loads the index for every request.
 * Answers are kept as JSON bytes (`toJsonBytes`), so a repeated search costs one version read and
 * no serialization.
 *
 * The version is read on the primary (`db`): it is what makes the seller's own last write show.
 * An answer or index it does not find kept is read from `options.caughtUp()`, a replica that has
 * replayed everything up to that version when one has (docs/replicas.md).
 */
export class SellerSearch {
  private readonly indexes: SearchCache<SellerListingIndex>;
  private readonly answers: SearchCache<Buffer>;

  constructor(
    private readonly db: DataSource,
    private readonly options: SellerSearchOptions,
  ) {
    this.indexes = new SearchCache(options.keepIndexMs, { entries: INDEXED_SELLERS });
    this.answers = new SearchCache(options.ttlMs, { entries: ANSWERS_KEPT });
    options.changes?.onChange(({ urns }) => this.itemsChanged(urns));
    // Changes may have gone unheard: every index is reloaded (each still answers meanwhile).
    options.changes?.onReset(() => this.indexes.held().forEach(([sellerId]) => this.indexes.expire(sellerId, 0)));
  }

  private itemsChanged(urns: string[]): void {
    for (const [sellerId, index] of this.indexes.held()) {
      index.then(
        (i) => i.listsAnyOf(urns) && this.indexes.expire(sellerId, this.options.ttlMs),
        () => undefined, // a failed load is not kept
      );
    }
  }

  /** The spec's search result (`SellerSearchResult`) as JSON bytes (`toJsonBytes`). */
  async search(sellerId: string, req: SellerSearchRequest): Promise<Buffer> {
    const version = await readSellerStatsVersion(this.db, sellerId);
    const key = JSON.stringify([sellerId, req.query ?? '', req.filters, req.facets, req.from, req.size]);
    return this.answers.get(key, version, async () => {
      const db = (await this.options.caughtUp?.()) ?? this.db;
      const index = await this.indexes.get(sellerId, version, () => SellerListingIndex.load(db, sellerId));
      const found = index.search({
        words: queryWords(req.query),
        facets: req.facets,
        filters: req.filters,
        from: req.from,
        size: req.size,
      });
      const { listings, attachments } = await loadListingRows(db, found.page);
      const [views, items, [seller]] = await Promise.all([
        toListingViews(db, listings, { includePrivate: true, withoutItemAndSeller: true, attachments }),
        this.options.views.items.getMany(listings.map((l) => l.itemUrn)),
        this.options.views.sellers.getMany(listings.length > 0 ? [sellerId] : []),
      ]);
      // `toJsonBytes({ total, hits, facets })`, with each hit's item and seller spliced in.
      const hits = views.map((view, n) => ({ pieces: cutAroundItemAndSeller(view), item: items[n] ?? null, seller: seller ?? null }));
      return Buffer.concat([...totalAndHits(found.total, hits), FACETS_KEY, toJsonBytes(found.facets), CLOSE]);
    });
  }
}

const [FACETS_KEY, CLOSE] = [',"facets":', '}'].map((text) => Buffer.from(text)) as [Buffer, Buffer];
