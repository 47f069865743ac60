import type { DataSource } from 'typeorm';
import { newId } from '../../ids';
import { conflict, notFound } from '../errors';
import { LIVE_LISTING_SQL } from '../listings/visibility';

/** How many listings a user watches (docs/alerts.md). */
export const MAX_WATCHED = 200;

export interface WatchedListing {
  listingId: string;
  urn: string;
  name: string;
  /** The listing's price now, in pence. */
  price: number;
  /** Units buyers can take now. */
  available: number;
  /** Whether buyers can buy it now (not deleted, hidden, sold out, nor its seller away). */
  live: boolean;
  createdAt: Date;
}

const LIVE = `coalesce(${LIVE_LISTING_SQL}, false)`;

const COLUMNS = `w.listing_id AS "listingId", l.item_urn AS urn, ci.name, l.price, greatest(l.quantity - l.reserved, 0) AS available,
  ${LIVE} AS live, w.created_at AS "createdAt"`;
const FROM = `watchlist w JOIN listings l ON l.id = w.listing_id JOIN catalog_items ci ON ci.urn = l.item_urn
  LEFT JOIN seller_accounts sa ON sa.user_id = l.seller_id`;

/**
 * The listings a user watches (docs/alerts.md). A watch records what the matcher last saw of
 * its listing (`seen_price`, `seen_available`, `seen_live`), starting from the listing as it is
 * when watched, so only changes after that are told.
 */
export class Watchlist {
  constructor(private readonly db: DataSource) {}

  /** Watched listings, the most recently watched first: at most 200, so one answer holds them all. */
  list(userId: string): Promise<WatchedListing[]> {
    return this.db.query(`SELECT ${COLUMNS} FROM ${FROM} WHERE w.user_id = $1 ORDER BY w.id DESC`, [userId]);
  }

  /** Watches a live listing of another seller; watching it again changes nothing. */
  async watch(userId: string, listingId: string): Promise<{ created: boolean; watched: WatchedListing }> {
    const created = await this.db.transaction(async (tx) => {
      await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
      const [listing]: Array<{ seller_id: string; price: number; available: number }> = await tx.query(
        `SELECT l.seller_id, l.price, l.quantity - l.reserved AS available
           FROM listings l JOIN seller_accounts sa ON sa.user_id = l.seller_id WHERE l.id = $1 AND ${LIVE_LISTING_SQL}`,
        [listingId],
      );
      if (!listing) throw notFound('Listing');
      if (listing.seller_id === userId) throw conflict('own-listing', 'You cannot watch your own listing.');
      const [{ count, watching }]: [{ count: number; watching: boolean }] = await tx.query(
        `SELECT count(*)::int AS count, coalesce(bool_or(listing_id = $2), false) AS watching FROM watchlist WHERE user_id = $1`,
        [userId, listingId],
      );
      if (watching) return false;
      if (count >= MAX_WATCHED)
        throw conflict('watchlist-limit-reached', `A user watches at most ${MAX_WATCHED} listings; remove one first.`);
      await tx.query(
        `INSERT INTO watchlist (id, user_id, listing_id, seen_price, seen_available, seen_live) VALUES ($1, $2, $3, $4, $5, true)`,
        [newId(), userId, listingId, listing.price, listing.available],
      );
      return true;
    });
    const [watched]: WatchedListing[] = await this.db.query(`SELECT ${COLUMNS} FROM ${FROM} WHERE w.user_id = $1 AND w.listing_id = $2`, [
      userId,
      listingId,
    ]);
    return { created, watched: watched! };
  }

  async unwatch(userId: string, listingId: string): Promise<void> {
    const [, affected]: [unknown, number] = await this.db.query(`DELETE FROM watchlist WHERE user_id = $1 AND listing_id = $2`, [
      userId,
      listingId,
    ]);
    if (!affected) throw notFound('Watched listing');
  }
}
