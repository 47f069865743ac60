import type { DataSource } from 'typeorm';
import { Listing } from '../../db/entities';
import { toKeptJsonBytes } from '../../json-bytes';
import { toListingViews } from '../listings/listing-view';
import { LIVE_LISTING_SQL } from '../listings/visibility';
import type { ListingQuery, ListingSort } from './listing-query';

/** One live listing of the item: what the filters and sorts read, and its hit as JSON bytes. */
interface Hit {
  id: string;
  price: number;
  /** created_at in microseconds, as PostgreSQL orders it (a JS Date keeps milliseconds only). */
  createdUs: bigint;
  condition: string;
  language: string;
  graded: boolean;
  sellerId: string;
  json: Buffer;
}

/**
 * Every live listing of one item, serialized once and held in each of the three orders listing
 * search offers, so any filter, sort and page of that item is answered without a query. This is
 * what `searchListings` computes, one item at a time: the same visibility (LIVE_LISTING_SQL),
 * the same hit views, the same orders (ties by id) and the same total;
 * test/api/listing-search-memory.test.ts compares the two over random queries.
 */
export class ItemListings {
  private readonly orders: Record<ListingSort, Hit[]>;

  private constructor(hits: Hit[]) {
    const byId = (a: Hit, b: Hit) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    this.orders = {
      price: [...hits].sort((a, b) => a.price - b.price || byId(a, b)),
      '-price': [...hits].sort((a, b) => b.price - a.price || byId(a, b)),
      newest: [...hits].sort((a, b) => (a.createdUs === b.createdUs ? byId(a, b) : a.createdUs > b.createdUs ? -1 : 1)),
    };
  }

  /** How many listings this holds: what a cache of them weighs. */
  get size(): number {
    return this.orders.price.length;
  }

  static async load(db: DataSource, urn: string): Promise<ItemListings> {
    const { entities, raw } = await db
      .getRepository(Listing)
      .createQueryBuilder('l')
      .innerJoin('seller_accounts', 'sa', 'sa.user_id = l.seller_id')
      .where(LIVE_LISTING_SQL)
      .andWhere('l.item_urn = :urn', { urn })
      .addSelect(`(extract(epoch FROM l.created_at) * 1000000)::bigint::text`, 'created_us')
      .getRawAndEntities<{ l_id: string; created_us: string }>();
    const createdUs = new Map(raw.map((r) => [r.l_id, BigInt(r.created_us)]));
    const views = await toListingViews(db, entities, { includePrivate: false });
    return new ItemListings(
      entities.map((l, n) => ({
        id: l.id,
        price: l.price,
        createdUs: createdUs.get(l.id)!,
        condition: l.condition,
        language: l.language,
        graded: l.gradingProvider !== null,
        sellerId: l.sellerId,
        json: toKeptJsonBytes(views[n]),
      })),
    );
  }

  /** The page `{ total, hits }` as JSON bytes, as `toJsonBytes(await searchListings(db, query))` writes it. */
  page(query: ListingQuery): Buffer {
    const matches = matcher(query.filters);
    const end = query.from + query.size;
    const parts: Buffer[] = [];
    let total = 0;
    for (const hit of this.orders[query.sort]) {
      if (!matches(hit)) continue;
      if (total >= query.from && total < end) parts.push(...(parts.length === 0 ? [hit.json] : [COMMA, hit.json]));
      total += 1;
    }
    return Buffer.concat([Buffer.from(`{"total":${total},"hits":[`), ...parts, CLOSE]);
  }
}

/** The filters of `searchListings`, as a predicate: an absent or empty filter lets everything through. */
function matcher(f: ListingQuery['filters']): (hit: Hit) => boolean {
  // PostgreSQL reads a uuid in any case, with or without hyphens and braces.
  const seller = f.sellerId === undefined ? undefined : uuidText(f.sellerId);
  return (hit) =>
    (!f.condition?.length || f.condition.includes(hit.condition)) &&
    (!f.language?.length || f.language.includes(hit.language)) &&
    (f.priceMin === undefined || hit.price >= f.priceMin) &&
    (f.priceMax === undefined || hit.price <= f.priceMax) &&
    (f.graded === undefined || hit.graded === f.graded) &&
    (seller === undefined || uuidText(hit.sellerId) === seller);
}

const uuidText = (id: string) => id.replace(/[{}-]/g, '').toLowerCase();

const [COMMA, CLOSE] = [',', ']}'].map((s) => Buffer.from(s)) as [Buffer, Buffer];
