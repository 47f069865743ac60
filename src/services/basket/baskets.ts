import type { DataSource, EntityManager } from 'typeorm';
import { newId } from '../../ids';
import { conflict, notFound } from '../errors';
import { LIVE_LISTING_SQL } from '../listings/visibility';
import { loadUserSummaries, type UserSummary } from '../users/user-summary';
import { priceBasket, type DeliveryAddress, type DeliveryOptionsOf, type PricedBasket, type SellerGroup } from './pricing';

/** Most distinct listings in one basket, and most units of one listing per line. */
export const MAX_BASKET_LINES = 100;
export const MAX_LINE_QUANTITY = 100;

export interface BasketRow {
  id: string;
  buyerId: string;
  deliveryAddress: DeliveryAddress | null;
  deliveryChoices: Record<string, string>;
  createdAt: Date;
  updatedAt: Date;
}

export interface BasketView {
  id: string;
  lines: Array<{ listingId: string; quantity: number }>;
  deliveryAddress: DeliveryAddress | null;
  createdAt: Date;
  updatedAt: Date;
}

export type BasketSummary = Omit<PricedBasket, 'sellers'> & {
  id: string;
  deliveryAddress: DeliveryAddress | null;
  sellers: Array<SellerGroup & { seller: UserSummary | null }>;
};

/**
 * A saved address (`sa`) in the basket's delivery address shape; with no recipient name saved,
 * the parcel is addressed to the account's username (`u`).
 */
const SAVED_ADDRESS_AS_DELIVERY = `jsonb_build_object('name', coalesce(nullif(sa.name, ''), u.username), 'line1', sa.line1, 'line2', sa.line2,
  'city', sa.city, 'state', sa.state, 'postal_code', sa.postal_code, 'country', sa.country)`;

const BASKET_COLUMNS = `id, user_id AS "buyerId", delivery_address AS "deliveryAddress", delivery_choices AS "deliveryChoices",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The caller's open basket: lines, delivery address and per-seller delivery choices. */
export class Baskets {
  constructor(
    private readonly db: DataSource,
    private readonly deliveryOptionsOf: DeliveryOptionsOf,
  ) {}

  /**
   * Returns the caller's open basket, creating it on first use (one open basket per user). A new
   * basket starts with the caller's primary shipping address, if they saved one.
   */
  async open(userId: string): Promise<BasketView> {
    await this.db.query(
      `INSERT INTO baskets (id, user_id, delivery_address)
       SELECT $1, $2, (SELECT ${SAVED_ADDRESS_AS_DELIVERY} FROM saved_addresses sa JOIN users u ON u.id = sa.user_id
                        WHERE sa.user_id = $2 AND sa.type = 'shipping' AND sa.is_primary)
       ON CONFLICT (user_id) WHERE status = 'OPEN' DO NOTHING`,
      [newId(), userId],
    );
    const [row]: BasketRow[] = await this.db.query(`SELECT ${BASKET_COLUMNS} FROM baskets WHERE user_id = $1 AND status = 'OPEN'`, [
      userId,
    ]);
    return this.view(row!);
  }

  /** The caller's open basket by id; anyone else's (or a closed one) is not found. */
  async find(db: DataSource | EntityManager, userId: string, basketId: string, lock = false): Promise<BasketRow> {
    const [row]: BasketRow[] = await db.query(
      `SELECT ${BASKET_COLUMNS} FROM baskets WHERE id = $1 AND user_id = $2 AND status = 'OPEN'${lock ? ' FOR UPDATE' : ''}`,
      [basketId, userId],
    );
    if (!row) throw notFound('Basket');
    return row;
  }

  /** Sets how many units of a listing the basket holds; the listing must be buyable now. */
  async setLine(userId: string, basketId: string, listingId: string, quantity: number): Promise<BasketView> {
    return this.db.transaction(async (tx) => {
      // Locking the basket serialises edits, so the line cap cannot be passed concurrently.
      const basket = await this.find(tx, userId, basketId, true);
      const [listing]: Array<{ seller_id: string; available: number }> = await tx.query(
        `SELECT l.seller_id, l.quantity - l.reserved AS available
           FROM listings l JOIN seller_accounts sa ON sa.user_id = l.seller_id
          WHERE l.id = $1 AND ${LIVE_LISTING_SQL}`,
        [listingId],
      );
      if (!listing) throw notFound('Listing');
      if (listing.seller_id === userId) throw conflict('own-listing', 'You cannot buy your own listing.');
      if (listing.available < quantity) {
        throw conflict('insufficient-stock', `Only ${listing.available} of this listing are available.`);
      }
      const [{ count }]: [{ count: number }] = await tx.query(
        `SELECT count(*)::int AS count FROM basket_lines WHERE basket_id = $1 AND listing_id <> $2`,
        [basket.id, listingId],
      );
      if (count >= MAX_BASKET_LINES) throw conflict('basket-full', `A basket holds at most ${MAX_BASKET_LINES} listings.`);
      await tx.query(
        `INSERT INTO basket_lines (basket_id, listing_id, quantity) VALUES ($1, $2, $3)
         ON CONFLICT (basket_id, listing_id) DO UPDATE SET quantity = EXCLUDED.quantity, updated_at = now()`,
        [basket.id, listingId, quantity],
      );
      await tx.query(`UPDATE baskets SET updated_at = now() WHERE id = $1`, [basket.id]);
      return this.view(basket, tx);
    });
  }

  async removeLine(userId: string, basketId: string, listingId: string): Promise<void> {
    const basket = await this.find(this.db, userId, basketId);
    const [, affected]: [unknown, number] = await this.db.query(`DELETE FROM basket_lines WHERE basket_id = $1 AND listing_id = $2`, [
      basket.id,
      listingId,
    ]);
    if (!affected) throw notFound('Basket line');
  }

  /** Sets the delivery address and, optionally, the delivery option chosen per seller. */
  async setDelivery(userId: string, basketId: string, address: DeliveryAddress, choices: Record<string, string>): Promise<BasketSummary> {
    const basket = await this.find(this.db, userId, basketId);
    await this.db.query(`UPDATE baskets SET delivery_address = $2, delivery_choices = $3, updated_at = now() WHERE id = $1`, [
      basket.id,
      JSON.stringify(address),
      JSON.stringify(choices),
    ]);
    return this.summary(userId, basketId);
  }

  /** Like `setDelivery`, with one of the caller's saved addresses (another user's is not found). */
  async setDeliveryFromSaved(userId: string, basketId: string, addressId: string, choices: Record<string, string>): Promise<BasketSummary> {
    const [row]: Array<{ address: DeliveryAddress }> = await this.db.query(
      `SELECT ${SAVED_ADDRESS_AS_DELIVERY} AS address FROM saved_addresses sa JOIN users u ON u.id = sa.user_id WHERE sa.id = $1 AND sa.user_id = $2`,
      [addressId, userId],
    );
    if (!row) throw notFound('Address');
    return this.setDelivery(userId, basketId, row.address, choices);
  }

  /** Everything the buyer pays, per seller and in total, with each line's purchasability. */
  async summary(userId: string, basketId: string): Promise<BasketSummary> {
    const basket = await this.find(this.db, userId, basketId);
    const priced = await this.price(this.db, basket);
    const sellers = await loadUserSummaries(
      this.db,
      priced.sellers.map((s) => s.sellerId),
    );
    return {
      id: basket.id,
      deliveryAddress: basket.deliveryAddress,
      ...priced,
      sellers: priced.sellers.map((g) => ({ ...g, seller: sellers.get(g.sellerId) ?? null })),
    };
  }

  price(db: DataSource | EntityManager, basket: BasketRow): Promise<PricedBasket> {
    return priceBasket(db, this.deliveryOptionsOf, {
      id: basket.id,
      buyerId: basket.buyerId,
      country: basket.deliveryAddress?.country ?? null,
      deliveryChoices: basket.deliveryChoices,
    });
  }

  private async view(basket: BasketRow, db: DataSource | EntityManager = this.db): Promise<BasketView> {
    const lines: Array<{ listingId: string; quantity: number }> = await db.query(
      `SELECT listing_id AS "listingId", quantity FROM basket_lines WHERE basket_id = $1 ORDER BY created_at, listing_id`,
      [basket.id],
    );
    return { id: basket.id, lines, deliveryAddress: basket.deliveryAddress, createdAt: basket.createdAt, updatedAt: basket.updatedAt };
  }
}
