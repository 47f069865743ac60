import type { DataSource } from 'typeorm';
import type { Listing } from '../../db/entities';
import { prepared, queryPrepared } from '../../db/prepared';
import { KEPT_BUFFER_NATIVE_BYTES, toKeptBytes } from '../../json-bytes';
import { cutAroundItemAndSeller, totalAndHits, type SplicedHit } from '../listings/listing-bytes';
import { ATTACHMENTS_JSON_SQL, LISTING_COLUMNS, toListingViews, type AttachmentView } from '../listings/listing-view';
import { LIVE_LISTING_SQL } from '../listings/visibility';
import type { ListingQuery, ListingSort } from './listing-query';

/** One live listing of the item: what the filters and sorts read, and its hit as JSON bytes. */
export interface Hit {
  id: string;
  price: number;
  /** created_at in microseconds, as PostgreSQL orders it (a JS Date keeps milliseconds only). */
  createdUs: bigint;
  condition: string;
  language: string;
  graded: boolean;
  sellerId: string;
  /**
   * The hit as JSON bytes around the values of its `item` and `seller`, which are spliced in at
   * page time from caches of their own: the item view is the same for every listing of the item
   * and kept once, and the seller's public figures (rating, sales) change without a
   * notification. What is kept here then changes only when the item's listings do.
   *
   * The hit is `bytes[start, itemAt)`, the item, `bytes[itemAt, sellerAt)`, the seller,
   * `bytes[sellerAt, end)`: `bytes` holds every hit of the item in one allocation, because an
   * allocation of its own per piece cost two objects each (a Buffer and its ArrayBuffer), three
   * per listing — most of the API's heap objects once thousands of items were kept.
   */
  bytes: Buffer;
  start: number;
  itemAt: number;
  sellerAt: number;
  end: number;
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

  /**
   * What this weighs in memory, estimated for a cache's byte budget: the one buffer of hit bytes,
   * each hit's object with its strings, its bigint and its slot in each order (`HIT_BYTES`), and
   * the rest of the entry, with malloc's records of the buffer (`ITEM_BYTES`).
   */
  get bytes(): number {
    const hits = this.orders.price;
    return ITEM_BYTES + (hits[0]?.bytes.length ?? 0) + hits.length * HIT_BYTES;
  }

  /** One round trip: the listings with their attachments (the item and sellers come from caches of their own). */
  static async load(db: DataSource, urn: string): Promise<ItemListings> {
    const rows = await queryPrepared<Listing & { createdUs: string; attachments: AttachmentView[] }>(db, LIVE_LISTINGS_OF_ITEM, [urn]);
    const attachments = new Map(rows.map((r) => [r.id, r.attachments]));
    const views = await toListingViews(db, rows, { includePrivate: false, withoutItemAndSeller: true, attachments });
    const pieces = views.map((view) => cutAroundItemAndSeller(view));
    const bytes = toKeptBytes(Buffer.concat(pieces.flat()));
    let at = 0;
    const hits = rows.map((l, n): Hit => {
      const [head, middle, tail] = pieces[n]!;
      const start = at;
      at += head.length + middle.length + tail.length;
      return {
        id: l.id,
        price: l.price,
        createdUs: BigInt(l.createdUs),
        condition: l.condition,
        language: l.language,
        graded: l.gradingProvider !== null,
        sellerId: l.sellerId,
        bytes,
        start,
        itemAt: start + head.length,
        sellerAt: start + head.length + middle.length,
        end: at,
      };
    });
    return new ItemListings(hits);
  }

  /** The hits of the page `query` asks for, and how many match in all. */
  select(query: ListingQuery): { total: number; hits: Hit[] } {
    const matches = matcher(query.filters);
    const end = query.from + query.size;
    const hits: Hit[] = [];
    let total = 0;
    for (const hit of this.orders[query.sort]) {
      if (!matches(hit)) continue;
      if (total >= query.from && total < end) hits.push(hit);
      total += 1;
    }
    return { total, hits };
  }
}

/**
 * A hit's object beyond its bytes: eleven fields, the id and seller id (36-character strings),
 * condition and language, a bigint and three order slots. With `ITEM_BYTES`, what
 * `bench/catalog/cache-weights.ts` weighs on the heap for items of five listings and of 2,000.
 */
const HIT_BYTES = 300;
/**
 * The rest of a kept item: on the heap, the object, its orders, the buffer's objects, the key and
 * the cache entry (about 1,100 bytes); outside it, malloc's records of its one Buffer.
 */
const ITEM_BYTES = 1100 + KEPT_BUFFER_NATIVE_BYTES;

/** One round trip: an item's live listings (LIVE_LISTING_SQL) with their attachments. */
const LIVE_LISTINGS_OF_ITEM = prepared(
  'live-listings-of-item',
  `SELECT ${LISTING_COLUMNS}, (extract(epoch FROM l.created_at) * 1000000)::bigint::text AS "createdUs",
          ${ATTACHMENTS_JSON_SQL} AS attachments
     FROM listings l JOIN seller_accounts sa ON sa.user_id = l.seller_id
    WHERE ${LIVE_LISTING_SQL} AND l.item_urn = $1`,
);

/**
 * The page `{ total, hits }` as JSON bytes in pieces, to be sent one after another: what
 * `toJsonBytes(await searchListings(db, query))` writes, given the item's view, each hit's seller summary and the price guide entry of each
 * hit's condition group (both in the order of `hits`) as `toJsonBytes` writes them, null where
 * there is none.
 */
export function renderPage(
  total: number,
  hits: Hit[],
  item: Buffer | null,
  sellers: Array<Buffer | null>,
  guides: Array<Buffer | null>,
): Buffer[] {
  const spliced = hits.map(({ bytes, start, itemAt, sellerAt, end }, n): SplicedHit => ({
    pieces: [bytes.subarray(start, itemAt), bytes.subarray(itemAt, sellerAt), bytes.subarray(sellerAt, end)],
    item,
    seller: sellers[n] ?? null,
    appended: [PRICE_GUIDE_KEY, guides[n] ?? NULL_JSON],
  }));
  return [...totalAndHits(total, spliced), CLOSE];
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

const CLOSE = Buffer.from('}');
const PRICE_GUIDE_KEY = Buffer.from(',"priceGuide":');
const NULL_JSON = Buffer.from('null');
