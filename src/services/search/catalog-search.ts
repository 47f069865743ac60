import type { DataSource } from 'typeorm';
import type { FreshReads } from '../../db/read-router';
import type { ItemChanges } from '../catalog/discover-changes';
import type { JsonCache } from './json-cache';
import { loadItems, type ItemView } from '../catalog/item-view';
import { SearchCache } from '../listings/search-cache';
import { rankCatalog, type CatalogQuery, type Ranking, type RankOptions, type TotalRelation } from './catalog-ranking';

export type { CatalogQuery, Ranking, SearchSort, TotalRelation } from './catalog-ranking';
export { TOTAL_CAP } from './catalog-ranking';

export interface CatalogPage {
  total: number;
  totalRelation: TotalRelation;
  page: number;
  size: number;
  items: ItemView[];
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
    /** Rankings by price read where every change is; by relevance or name, where the catalog's are. */
    private readonly reads: FreshReads,
    private readonly items: JsonCache<ItemView>,
    changes: ItemChanges | undefined,
    keepMs: () => number,
    /** The memory budget of each of the two kept rankings (by catalog, by price), in bytes. */
    maxBytes: number,
  ) {
    const bound = { bytes: maxBytes, sizeOf: rankingBytes };
    this.byCatalog = new SearchCache(keepMs, bound);
    this.byPrice = new SearchCache(keepMs, bound);
    changes?.onChange(({ catalog }) => {
      this.byPrice.clear();
      if (catalog) this.byCatalog.clear();
    });
    changes?.onReset(() => {
      this.byPrice.clear();
      this.byCatalog.clear();
    });
  }

  /**
   * The page as JSON bytes (`toJsonBytes`) in pieces, to be sent one after another (the cached
   * items between the page's head, commas and close; see `JsonBytes`). The query arrives
   * normalised by the route's schema (defaults filled).
   */
  async search(query: CatalogQuery): Promise<Buffer[]> {
    const [rankings, db] = query.sort === 'price' ? [this.byPrice, this.reads.all] : [this.byCatalog, this.reads.catalog];
    const { total, totalRelation, urns } = await rankings.get(JSON.stringify(query), RANKING_VERSION, () => rankCatalog(db, query));
    const found = (await this.items.getMany(urns)).filter((json): json is Buffer => json !== null);
    const head = Buffer.from(`{"total":${total},"totalRelation":"${totalRelation}","page":${query.page},"size":${query.size},"items":[`);
    const parts: Buffer[] = [head];
    found.forEach((json, n) => parts.push(...(n === 0 ? [json] : [COMMA, json])));
    parts.push(CLOSE);
    return parts;
  }
}

/**
 * A kept ranking's weight, estimated for the byte budget: its key (the query as JSON) and its
 * page's URNs as one-byte strings (a character each plus a header), and about 700 bytes for the
 * entry, its promise, the ranking and its array; a page of 20 weighs about 1.7 kB
 * (`bench/catalog/cache-weights.ts` weighs it on the heap).
 */
export const rankingBytes = ({ urns }: Ranking, key: string) => urns.reduce((n, urn) => n + 24 + urn.length, 700 + key.length);
/** Rankings are dropped, not versioned. */
const RANKING_VERSION = '0';
const [COMMA, CLOSE] = [',', ']}'].map((s) => Buffer.from(s)) as [Buffer, Buffer];
