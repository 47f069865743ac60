import type { DataSource, EntityManager } from 'typeorm';
import { invalid, notFound } from '../errors';
import { loadListingViews, type ListingView } from '../listings/listing-view';
import { LIVE_LISTING_SQL } from '../listings/visibility';
import type { CursorPage } from '../paging';

/** What fired a notification (docs/alerts.md, "Firing rules"). */
export const NOTIFICATION_KINDS = ['PRICE_ALERT', 'PRICE_DROP', 'ONE_LEFT', 'GONE'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export interface NotificationView {
  id: string;
  kind: NotificationKind;
  /** The price alert that fired; null for the watchlist's kinds (or once the alert was deleted). */
  alertId: string | null;
  /** What fired, as a sentence for people. */
  message: string;
  listing: { id: string; urn: string; name: string; price: number; previousPrice: number | null };
  /** The listing's resource (`GET /listings/{id}`). */
  link: string;
  createdAt: Date;
  readAt: Date | null;
}

interface NotificationRow {
  id: string;
  kind: NotificationKind;
  alert_id: string | null;
  listing_id: string;
  item_urn: string;
  name: string;
  price: number;
  previous_price: number | null;
  max_price: number | null;
  created_at: Date;
  read_at: Date | null;
}

const SELECT = `SELECT n.id, n.kind, n.alert_id, n.listing_id, n.item_urn, coalesce(ci.name, n.item_urn) AS name, n.price,
    n.previous_price, n.max_price, n.created_at, n.read_at
  FROM notifications n LEFT JOIN catalog_items ci ON ci.urn = n.item_urn`;

/** Prices in prose: integer pence as pounds. */
export const money = (pence: number) => `£${(pence / 100).toFixed(2)}`;

/** The sentence saying what fired, from what the notification recorded when it fired. */
export function notificationMessage(n: Pick<NotificationRow, 'kind' | 'name' | 'price' | 'previous_price' | 'max_price'>): string {
  switch (n.kind) {
    case 'PRICE_ALERT':
      return `${n.name} is listed at ${money(n.price)}, within your alert's ${money(n.max_price ?? n.price)}.`;
    case 'PRICE_DROP':
      return `${n.name} on your watchlist dropped from ${money(n.previous_price ?? n.price)} to ${money(n.price)}.`;
    case 'ONE_LEFT':
      return `Only one ${n.name} on your watchlist is left, at ${money(n.price)}.`;
    case 'GONE':
      return `${n.name} on your watchlist is no longer for sale.`;
  }
}

const view = (r: NotificationRow): NotificationView => ({
  id: r.id,
  kind: r.kind,
  alertId: r.alert_id,
  message: notificationMessage(r),
  listing: { id: r.listing_id, urn: r.item_urn, name: r.name, price: r.price, previousPrice: r.previous_price },
  link: `/listings/${r.listing_id}`,
  createdAt: r.created_at,
  readAt: r.read_at,
});

/**
 * A user's notifications (docs/alerts.md): written by the matcher in the background, read and
 * marked read here. Ownership is part of every statement.
 */
export class Notifications {
  constructor(private readonly db: DataSource) {}

  listing(id: string): Promise<ListingView> {
    return liveListing(this.db, id);
  }

  /**
   * Newest first, `size` at a time after the `cursor` notification (ids are time-ordered UUID
   * v7), as transfers and payouts page. A cursor that is not one of the caller's is a 400.
   */
  async list(userId: string, page: { cursor?: string; size: number; unread?: boolean }): Promise<CursorPage<NotificationView>> {
    if (page.cursor) {
      const [known] = await this.db.query(`SELECT 1 FROM notifications WHERE id = $1 AND user_id = $2`, [page.cursor, userId]);
      if (!known)
        throw invalid('invalid-cursor', 'The cursor is not one this list returned.', [
          { in: 'query', field: 'cursor', message: 'Unknown cursor.' },
        ]);
    }
    const rows: NotificationRow[] = await this.db.query(
      `${SELECT} WHERE n.user_id = $1 AND ($2::uuid IS NULL OR n.id < $2) AND (NOT $4 OR n.read_at IS NULL) ORDER BY n.id DESC LIMIT $3`,
      [userId, page.cursor ?? null, page.size + 1, page.unread ?? false],
    );
    const items = rows.slice(0, page.size).map(view);
    return { items, nextCursor: rows.length > page.size ? items[items.length - 1]!.id : null };
  }

  async unreadCount(userId: string): Promise<number> {
    const [{ unread }]: [{ unread: number }] = await this.db.query(
      `SELECT count(*)::int AS unread FROM notifications WHERE user_id = $1 AND read_at IS NULL`,
      [userId],
    );
    return unread;
  }

  /** Marks one read (again: harmless, the first time is kept); answers it. */
  async markRead(userId: string, id: string): Promise<NotificationView> {
    await this.db.query(`UPDATE notifications SET read_at = now() WHERE id = $1 AND user_id = $2 AND read_at IS NULL`, [id, userId]);
    const [row] = await notificationsById(this.db, userId, [id]);
    if (!row) throw notFound('Notification');
    return row;
  }

  /** Marks every unread notification read; answers how many were. */
  async markAllRead(userId: string): Promise<number> {
    const [, affected]: [unknown, number] = await this.db.query(
      `UPDATE notifications SET read_at = now() WHERE user_id = $1 AND read_at IS NULL`,
      [userId],
    );
    return affected;
  }
}

/** The user's notifications among `ids`, newest first. */
export async function notificationsById(db: DataSource | EntityManager, userId: string, ids: string[]): Promise<NotificationView[]> {
  const rows: NotificationRow[] = await db.query(`${SELECT} WHERE n.user_id = $1 AND n.id = ANY($2::uuid[]) ORDER BY n.id DESC`, [
    userId,
    ids,
  ]);
  return rows.map(view);
}

/**
 * One live listing as buyers see it, the resource a notification links to; a listing that is not
 * live (deleted, hidden, sold out, its seller away) is not found.
 */
export async function liveListing(db: DataSource, id: string): Promise<ListingView> {
  const [live] = await db.query(
    `SELECT 1 FROM listings l JOIN seller_accounts sa ON sa.user_id = l.seller_id WHERE l.id = $1 AND ${LIVE_LISTING_SQL}`,
    [id],
  );
  const [view] = live ? await loadListingViews(db, [id], { includePrivate: false }) : [];
  if (!view) throw notFound('Listing');
  return view;
}
