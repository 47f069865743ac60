import type { DataSource, EntityManager } from 'typeorm';
import type { BasketProblem } from './optimizer';
import { fittingListingsSql } from './line-fit';
import type { OptimizationRequest, UnfilledReason } from './optimization-request';

/** How much of a line the market holds, stage by stage: why a line may go short. */
interface LineSupply {
  quantity: number;
  /** Units of live listings that fit the line, at any price, from any seller. */
  fitting: number;
  /** …of those, within the line's `maxPrice`. */
  withinPrice: number;
  /** …of those, from sellers the basket may use. */
  eligible: number;
}

export interface LoadedProblem {
  problem: BasketProblem;
  supply: Map<string, LineSupply>;
}

interface FitRow {
  line_id: string;
  listing_id: string;
  seller_id: string;
  price: number;
  available: number;
  within_max_price: boolean;
}

/**
 * The optimizer's instance for one wants list and request, read in four indexed queries: the
 * lines, the listings that fit them (`fittingListingsSql`), each candidate seller's cheapest
 * delivery option serving the destination, and which sellers meet `minSellerRating`.
 *
 * A listing is a candidate for a line when it fits, is within the line's `maxPrice`, and its
 * seller may serve this buyer: not the buyer, not excluded, rated at least `minSellerRating`
 * (a seller with no reviews has no rating and is left out when one is asked), and delivering to
 * the country. Live listings only (`LIVE_LISTING_SQL`: no vacation or suspended sellers), with
 * stock net of checkout holds. Everything else the line's supply counts tells `unfilledReason`.
 */
export async function loadBasketProblem(
  db: DataSource | EntityManager,
  listId: string,
  buyerId: string,
  request: OptimizationRequest,
): Promise<LoadedProblem> {
  const lines: Array<{ id: string; quantity: number }> = await db.query(
    `SELECT id, quantity FROM wants_lines WHERE list_id = $1 AND ($2::uuid[] IS NULL OR id = ANY($2)) ORDER BY created_at, id`,
    [listId, request.lineIds],
  );
  const fits: FitRow[] = await db.query(
    fittingListingsSql(`(SELECT * FROM wants_lines WHERE list_id = $1 AND ($2::uuid[] IS NULL OR id = ANY($2)))`),
    [listId, request.lineIds],
  );
  const sellerIds = [...new Set(fits.filter((f) => f.within_max_price).map((f) => f.seller_id))];
  const delivery = await cheapestDelivery(db, sellerIds, request.country);
  const rated = request.minSellerRating === null ? null : await sellersRatedAtLeast(db, sellerIds, request.minSellerRating);
  const excluded = new Set(request.excludeSellerIds);
  const mayServe = (sellerId: string) =>
    sellerId !== buyerId && !excluded.has(sellerId) && delivery.has(sellerId) && (rated === null || rated.has(sellerId));

  const supply = new Map(lines.map((l) => [l.id, { quantity: l.quantity, fitting: 0, withinPrice: 0, eligible: 0 }]));
  const candidates = new Map<string, string[]>(lines.map((l) => [l.id, []]));
  const listings = new Map<string, BasketProblem['listings'][number]>();
  for (const f of fits) {
    const s = supply.get(f.line_id)!;
    s.fitting += f.available;
    if (!f.within_max_price) continue;
    s.withinPrice += f.available;
    if (!mayServe(f.seller_id)) continue;
    s.eligible += f.available;
    candidates.get(f.line_id)!.push(f.listing_id);
    listings.set(f.listing_id, { id: f.listing_id, sellerId: f.seller_id, unitPrice: f.price, available: f.available });
  }
  const usedSellers = new Set([...listings.values()].map((l) => l.sellerId));
  return {
    problem: {
      lines: lines.map((l) => ({ id: l.id, quantity: l.quantity, listingIds: candidates.get(l.id)! })),
      listings: [...listings.values()],
      sellers: [...usedSellers].map((id) => ({ id, ...delivery.get(id)! })),
      ...(request.maxSellers === null ? {} : { maxSellers: request.maxSellers }),
      timeLimitMs: request.timeLimitMs,
    },
    supply,
  };
}

/** Why `missing` units of a line stay unfilled, from the first stage of its supply that falls short. */
export function unfilledReason(supply: LineSupply): UnfilledReason {
  if (supply.fitting === 0) return 'NO_STOCK';
  if (supply.withinPrice === 0) return 'OVER_MAX_PRICE';
  if (supply.eligible === 0) return 'NO_ELIGIBLE_SELLER';
  // Lines may share listings, so a line whose own supply suffices can still go short.
  if (supply.eligible < supply.quantity) return 'NOT_ENOUGH_STOCK';
  return 'MAX_SELLERS';
}

/** Each seller's cheapest delivery option serving `country` (ties by id, so the answer is stable). */
async function cheapestDelivery(
  db: DataSource | EntityManager,
  sellerIds: string[],
  country: string,
): Promise<Map<string, { deliveryOptionId: string; deliveryPrice: number }>> {
  if (sellerIds.length === 0) return new Map();
  const rows: Array<{ seller_id: string; id: string; price: number }> = await db.query(
    `SELECT DISTINCT ON (seller_id) seller_id, id, price FROM delivery_options
      WHERE seller_id = ANY($1) AND $2 = ANY(countries) ORDER BY seller_id, price, id`,
    [sellerIds, country],
  );
  return new Map(rows.map((r) => [r.seller_id, { deliveryOptionId: r.id, deliveryPrice: r.price }]));
}

async function sellersRatedAtLeast(db: DataSource | EntityManager, sellerIds: string[], minRating: number): Promise<Set<string>> {
  if (sellerIds.length === 0) return new Set();
  const rows: Array<{ id: string }> = await db.query(
    `SELECT id FROM users WHERE id = ANY($1) AND reviews_count > 0 AND rating_sum >= $2::numeric * reviews_count`,
    [sellerIds, minRating],
  );
  return new Set(rows.map((r) => r.id));
}
