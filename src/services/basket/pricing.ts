import type { ListingVariant } from '../../db/entities/listing';
import type { DataSource, EntityManager } from 'typeorm';
import type { DeliveryOptionView } from '../sellers/delivery-options';
import { LIVE_LISTING_SQL } from '../listings/visibility';

/**
 * A delivery address as stored (baskets, checkout sessions, purchases, case outcomes): the spec's
 * seller order `purchase.deliveryAddress` shape, which that view shows as it is.
 */
export type DeliveryAddress = {
  name: string;
  line1: string;
  line2: string;
  city: string;
  state: string;
  postal_code: string;
  country: string;
};

/** A delivery address as every other answer shows it: the saved address's field names. */
export type AddressView = Omit<DeliveryAddress, 'postal_code'> & { postalCode: string };

export const addressView = ({ postal_code, ...rest }: DeliveryAddress): AddressView => ({ ...rest, postalCode: postal_code });

/** Country used to price delivery before the buyer has given an address. */
export const DEFAULT_DELIVERY_COUNTRY = 'GB';

/**
 * The buyer fee, once per purchase: 2% of the items subtotal rounded up, at least 25p (zero for
 * an empty basket). Integer pence throughout.
 */
export function buyerFee(subtotal: number): number {
  return subtotal === 0 ? 0 : Math.max(25, Math.ceil((subtotal * 2) / 100));
}

/** Why a basket line cannot be bought; checkout reports these lines' listing ids. */
export type LineProblem = 'own-listing' | 'not-live' | 'insufficient-stock' | 'no-delivery';

export interface PricedLine {
  listingId: string;
  sellerId: string;
  urn: string;
  condition: string;
  language: string;
  variants: ListingVariant[];
  comment: string;
  quantity: number;
  /** Pence per unit, as listed now. */
  price: number;
  lineTotal: number;
  available: number;
  problem: LineProblem | null;
}

export interface DeliveryChoice {
  id: string;
  name: string;
  price: number;
  tracked: boolean;
}

export interface SellerGroup {
  sellerId: string;
  lines: PricedLine[];
  subtotal: number;
  deliveryOptions: DeliveryChoice[];
  /** The buyer's choice when still offered, else the cheapest; null when none delivers there. */
  deliveryOption: DeliveryChoice | null;
  deliveryCharge: number;
  total: number;
}

export interface PricedBasket {
  country: string;
  sellers: SellerGroup[];
  subtotal: number;
  delivery: number;
  fee: number;
  total: number;
  /** Listing ids of lines that cannot be bought as they stand. */
  failingListingIds: string[];
}

interface LineRow {
  listing_id: string;
  quantity: number;
  seller_id: string;
  price: number;
  item_urn: string;
  condition: string;
  language: string;
  variants: ListingVariant[];
  comment: string;
  available: number;
  live: boolean;
}

export type DeliveryOptionsOf = (sellerId: string, country: string) => Promise<DeliveryOptionView[]>;

/**
 * The one place a basket is priced and checked: per-seller subtotals, delivery options and
 * charges, the buyer fee and totals, and every line's purchasability (the summary shows it,
 * checkout refuses on it). Reads the listings as they are now.
 */
export async function priceBasket(
  db: DataSource | EntityManager,
  deliveryOptionsOf: DeliveryOptionsOf,
  basket: { id: string; buyerId: string; country: string | null; deliveryChoices: Record<string, string> },
): Promise<PricedBasket> {
  const country = basket.country ?? DEFAULT_DELIVERY_COUNTRY;
  const rows: LineRow[] = await db.query(
    `SELECT bl.listing_id, bl.quantity, l.seller_id, l.price, l.item_urn, l.condition, l.language, l.variants, l.comment,
            l.quantity - l.reserved AS available, COALESCE(${LIVE_LISTING_SQL}, false) AS live
       FROM basket_lines bl
       JOIN listings l ON l.id = bl.listing_id
       LEFT JOIN seller_accounts sa ON sa.user_id = l.seller_id
      WHERE bl.basket_id = $1
      ORDER BY bl.created_at, bl.listing_id`,
    [basket.id],
  );
  const bySeller = new Map<string, LineRow[]>();
  for (const row of rows) bySeller.set(row.seller_id, [...(bySeller.get(row.seller_id) ?? []), row]);

  const sellers: SellerGroup[] = [];
  for (const [sellerId, sellerRows] of bySeller) {
    const deliveryOptions = (await deliveryOptionsOf(sellerId, country)).map((o) => ({
      id: o.id,
      name: o.name,
      price: o.price,
      tracked: o.tracked,
    }));
    const chosen = deliveryOptions.find((o) => o.id === basket.deliveryChoices[sellerId]) ?? deliveryOptions[0] ?? null;
    const lines = sellerRows.map((r): PricedLine => ({
      listingId: r.listing_id,
      sellerId,
      urn: r.item_urn,
      condition: r.condition,
      language: r.language,
      variants: r.variants,
      comment: r.comment,
      quantity: r.quantity,
      price: r.price,
      lineTotal: r.price * r.quantity,
      available: Math.max(0, r.available),
      problem:
        sellerId === basket.buyerId
          ? 'own-listing'
          : !r.live
            ? 'not-live'
            : r.available < r.quantity
              ? 'insufficient-stock'
              : chosen === null
                ? 'no-delivery'
                : null,
    }));
    const subtotal = lines.reduce((sum, l) => sum + l.lineTotal, 0);
    const deliveryCharge = chosen?.price ?? 0;
    sellers.push({ sellerId, lines, subtotal, deliveryOptions, deliveryOption: chosen, deliveryCharge, total: subtotal + deliveryCharge });
  }
  const subtotal = sellers.reduce((sum, s) => sum + s.subtotal, 0);
  const delivery = sellers.reduce((sum, s) => sum + s.deliveryCharge, 0);
  const fee = buyerFee(subtotal);
  return {
    country,
    sellers,
    subtotal,
    delivery,
    fee,
    total: subtotal + delivery + fee,
    failingListingIds: sellers.flatMap((s) => s.lines.filter((l) => l.problem !== null).map((l) => l.listingId)),
  };
}
