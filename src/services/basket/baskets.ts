import type { DataSource, EntityManager } from 'typeorm';
import { newId } from '../../ids';
import { SAVED_ADDRESS_AS_DELIVERY, savedDeliveryAddress } from '../account/addresses';
import { conflict, DomainError, notFound } from '../errors';
import { LIVE_LISTING_SQL } from '../listings/visibility';
import { loadUserSummaries, type UserSummary } from '../users/user-summary';
import {
  addressView,
  priceBasket,
  type AddressView,
  type DeliveryAddress,
  type DeliveryOptionsOf,
  type PricedBasket,
  type SellerGroup,
} from './pricing';

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
  deliveryAddress: AddressView | null;
  createdAt: Date;
  updatedAt: Date;
}

export type BasketSummary = Omit<PricedBasket, 'sellers'> & {
  id: string;
  deliveryAddress: AddressView | null;
  sellers: Array<SellerGroup & { seller: UserSummary | null }>;
};

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

  /**
   * Adds units of several listings at the unit prices the caller was shown, with a delivery option
   * per seller, in one transaction: all or nothing (a wants list's optimized basket). Every listing
   * no longer live, repriced, short of the units (beside what the basket already holds) or the
   * caller's own is named in one 409 `optimization-outdated`. `address`: a saved address of the
   * caller's to deliver to.
   */
  async addPicks(
    userId: string,
    picks: Array<{ listingId: string; quantity: number; unitPrice: number }>,
    choices: Record<string, string>,
    addressId: string | null,
  ): Promise<BasketView> {
    const { id: basketId } = await this.open(userId);
    const wanted = new Map<string, { quantity: number; unitPrice: number }>();
    for (const p of picks)
      wanted.set(p.listingId, { quantity: (wanted.get(p.listingId)?.quantity ?? 0) + p.quantity, unitPrice: p.unitPrice });
    return this.db.transaction(async (tx) => {
      const basket = await this.find(tx, userId, basketId, true);
      const rows: Array<{ id: string; seller_id: string; price: number; available: number; in_basket: number }> = await tx.query(
        `SELECT l.id, l.seller_id, l.price, l.quantity - l.reserved AS available,
                COALESCE((SELECT bl.quantity FROM basket_lines bl WHERE bl.basket_id = $2 AND bl.listing_id = l.id), 0) AS in_basket
           FROM listings l JOIN seller_accounts sa ON sa.user_id = l.seller_id
          WHERE l.id = ANY($1) AND ${LIVE_LISTING_SQL}`,
        [[...wanted.keys()], basket.id],
      );
      const live = new Map(rows.map((r) => [r.id, r]));
      const changed = [...wanted].flatMap(([listingId, want]) => {
        const l = live.get(listingId);
        const fine = l && l.seller_id !== userId && l.price === want.unitPrice && l.available >= l.in_basket + want.quantity;
        return fine ? [] : [listingId];
      });
      if (changed.length > 0) {
        throw new DomainError('conflict', 'optimization-outdated', 'Some picks changed since the basket was optimized; optimize again.', {
          listingIds: changed,
        });
      }
      const [{ count }]: [{ count: number }] = await tx.query(
        `SELECT count(*)::int AS count FROM basket_lines WHERE basket_id = $1 AND NOT (listing_id = ANY($2))`,
        [basket.id, [...wanted.keys()]],
      );
      if (count + wanted.size > MAX_BASKET_LINES) throw conflict('basket-full', `A basket holds at most ${MAX_BASKET_LINES} listings.`);
      await tx.query(
        `INSERT INTO basket_lines (basket_id, listing_id, quantity)
         SELECT $1, p.listing_id, p.quantity FROM unnest($2::uuid[], $3::int[]) AS p(listing_id, quantity)
         ON CONFLICT (basket_id, listing_id) DO UPDATE SET quantity = basket_lines.quantity + EXCLUDED.quantity, updated_at = now()`,
        [basket.id, [...wanted.keys()], [...wanted.values()].map((w) => w.quantity)],
      );
      const address = addressId === null ? null : await savedDeliveryAddress(tx, userId, addressId);
      await tx.query(
        `UPDATE baskets SET delivery_choices = delivery_choices || $2::jsonb,
                            delivery_address = COALESCE($3::jsonb, delivery_address), updated_at = now()
          WHERE id = $1`,
        [basket.id, JSON.stringify(choices), address === null ? null : JSON.stringify(address)],
      );
      return this.view({ ...basket, ...(address ? { deliveryAddress: address } : {}) }, tx);
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
    return this.setDelivery(userId, basketId, await savedDeliveryAddress(this.db, userId, addressId), choices);
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
      deliveryAddress: basket.deliveryAddress && addressView(basket.deliveryAddress),
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
    return {
      id: basket.id,
      lines,
      deliveryAddress: basket.deliveryAddress && addressView(basket.deliveryAddress),
      createdAt: basket.createdAt,
      updatedAt: basket.updatedAt,
    };
  }
}
