import type { EntityManager } from 'typeorm';
import type { DataSource } from 'typeorm';
import { newId } from '../../ids';
import type { ListingEventData, OrderEventData } from '../events/outbox';
import { LIVE_LISTING_SQL } from '../listings/visibility';
import { listingMeetsSql } from '../wants/line-fit';
import type { NotificationKind } from './notifications';

/**
 * The events that can move a listing's price, stock or visibility: a seller's own writes, and
 * the orders that take or give back stock (checkouts emit no listing event, docs/seller-listings.md).
 */
export const MATCHED_EVENT_TYPES = ['LISTING_CREATED', 'LISTING_UPDATED', 'LISTING_DELETED', 'ORDER_CREATED', 'ORDER_CANCELLED'] as const;

/**
 * One pass's claim ($1: the batch size): events not yet matched, oldest first, through the partial
 * index of unmatched events. Rows the webhook fan-out or another matcher holds are skipped.
 */
const CLAIM = `SELECT id, type, data FROM outbox_events WHERE alerts_matched_at IS NULL
  ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`;

/**
 * The price alerts a batch of listings fires ($1: listing ids), found from each listing through
 * the indexes — by its item (`price_alerts_item_idx`), by its card (`price_alerts_card_idx`,
 * game and lower(name)), each read from the listing's price up (`max_price >= price`) — and
 * then checked against the alert's constraints (the wants rule, `listingMeetsSql`). An alert
 * fires at most once per listing and price: not when it was already told of this listing at this
 * price or lower (`notifications_alert_idx`). Only live listings fire, and never for their seller.
 * Exported for the plan check in test/services/alert-matcher.test.ts.
 */
export const FIRED_ALERTS = `
  WITH cur AS (
    SELECT l.id, l.seller_id, l.item_urn, l.price, l.condition, l.language, l.variants, ci.game_urn, lower(ci.name) AS lname
      FROM listings l
      JOIN seller_accounts sa ON sa.user_id = l.seller_id
      JOIN catalog_items ci ON ci.urn = l.item_urn
     WHERE l.id = ANY($1::uuid[]) AND ${LIVE_LISTING_SQL}
  )
  SELECT a.id AS alert_id, a.user_id, a.max_price, cur.id AS listing_id, cur.item_urn, cur.price
    FROM cur
    JOIN LATERAL (
      SELECT * FROM price_alerts a WHERE a.item_urn = cur.item_urn AND a.max_price >= cur.price
      UNION ALL
      SELECT * FROM price_alerts a WHERE a.game_urn = cur.game_urn AND lower(a.card_name) = cur.lname AND a.max_price >= cur.price
    ) a ON true
   WHERE ${listingMeetsSql('a', 'cur')}
     AND a.user_id <> cur.seller_id
     AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.alert_id = a.id AND n.listing_id = cur.id AND n.price <= cur.price)`;

/**
 * FIRED_ALERTS written as notifications in the same statement, so the rows never travel to the
 * worker and back (a popular card's listing fires thousands); unique by (alert, listing, price).
 * Answers each user told once, with the first notification written for them.
 */
const WRITE_FIRED = `
  WITH written AS (
    INSERT INTO notifications (id, user_id, kind, alert_id, listing_id, item_urn, price, max_price)
    SELECT uuid_v7(), f.user_id, 'PRICE_ALERT', f.alert_id, f.listing_id, f.item_urn, f.price, f.max_price
      FROM (${FIRED_ALERTS}) f
    ON CONFLICT (alert_id, listing_id, price) WHERE alert_id IS NOT NULL DO NOTHING
    RETURNING id, user_id)
  SELECT DISTINCT ON (user_id) id, user_id FROM written ORDER BY user_id, id`;

/** The watches of a batch of listings ($1), locked, with what each saw and what the listing is now. */
const WATCHES = `
  SELECT w.id, w.user_id, w.listing_id, w.seen_price, w.seen_available, w.seen_live, l.item_urn, l.price,
         greatest(l.quantity - l.reserved, 0) AS available, coalesce(${LIVE_LISTING_SQL}, false) AS live
    FROM watchlist w
    JOIN listings l ON l.id = w.listing_id
    LEFT JOIN seller_accounts sa ON sa.user_id = l.seller_id
   WHERE w.listing_id = ANY($1::uuid[])
     FOR UPDATE OF w`;

interface Watch {
  id: string;
  user_id: string;
  listing_id: string;
  seen_price: number;
  seen_available: number;
  seen_live: boolean;
  item_urn: string;
  price: number;
  available: number;
  live: boolean;
}

/** A watch's notification to write; `dedupeKey` makes writing it twice harmless. */
interface WatchNotification {
  userId: string;
  kind: NotificationKind;
  listingId: string;
  itemUrn: string;
  price: number;
  previousPrice: number | null;
  dedupeKey: string;
}

/** What one watch's listing did since the matcher last looked: what to tell, at most one of each. */
export function watchChanges(w: Watch): NotificationKind[] {
  if (!w.live) return w.seen_live ? ['GONE'] : [];
  const told: NotificationKind[] = [];
  if (w.seen_live && w.price < w.seen_price) told.push('PRICE_DROP');
  if (w.available === 1 && (w.seen_available > 1 || !w.seen_live)) told.push('ONE_LEFT');
  return told;
}

/** What the matcher's pass did: the events it read, and the users it told (with a notification of theirs). */
export interface MatchResult {
  events: number;
  notified: Array<{ id: string; userId: string }>;
}

/**
 * Price alerts and watches matched against listing changes at write time, in the background
 * (docs/alerts.md, "Matching"): a reader of the events outbox beside the webhook fan-out, with a
 * mark of its own (`alerts_matched_at`), run by the worker's start dispatcher before each pass. A
 * batch of events is claimed, reduced to the listings they name, and those listings are matched
 * as they are now (several events of one listing count once); the notifications and the mark
 * are written in one transaction, so a batch is matched once, and the notifications' unique keys
 * make a repeat harmless. Nothing here runs in the seller's request.
 *
 * `onNotified` runs in the same transaction with the users told (the e-mail digest's starts).
 */
export class AlertMatcher {
  constructor(
    private readonly db: DataSource,
    private readonly options: {
      batchSize: number;
      onNotified?: (tx: EntityManager, notified: MatchResult['notified']) => Promise<unknown>;
    },
  ) {}

  /** One batch; answers how many events it read (0: nothing was waiting). */
  async matchBatch(): Promise<MatchResult> {
    return this.db.transaction(async (tx) => {
      const events: Array<{ id: string; type: string; data: unknown }> = await tx.query(CLAIM, [this.options.batchSize]);
      if (events.length === 0) return { events: 0, notified: [] };
      // The latest event of each listing names the change in the watches' keys.
      const latest = new Map<string, string>();
      for (const e of events) for (const listingId of listingsOf(e)) latest.set(listingId, e.id);
      const notified = latest.size > 0 ? await this.match(tx, latest) : [];
      if (notified.length > 0) await this.options.onNotified?.(tx, notified);
      await tx.query(`UPDATE outbox_events SET alerts_matched_at = now() WHERE id = ANY($1::uuid[])`, [events.map((e) => e.id)]);
      return { events: events.length, notified };
    });
  }

  /** Matches until nothing is waiting; answers how many events it read (tests, a drain). */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const { events } = await this.matchBatch();
      total += events;
      if (events < this.options.batchSize) return total;
    }
  }

  private async match(tx: EntityManager, latest: Map<string, string>): Promise<MatchResult['notified']> {
    const listingIds = [...latest.keys()];
    const alerted: Array<{ id: string; user_id: string }> = await tx.query(WRITE_FIRED, [listingIds]);
    const watches: Watch[] = await tx.query(WATCHES, [listingIds]);
    const rows: WatchNotification[] = [];
    for (const w of watches) {
      for (const kind of watchChanges(w)) {
        rows.push({
          userId: w.user_id,
          kind,
          listingId: w.listing_id,
          itemUrn: w.item_urn,
          price: w.price,
          previousPrice: kind === 'PRICE_DROP' ? w.seen_price : null,
          dedupeKey: `watch:${w.id}:${kind}:${latest.get(w.listing_id)}`,
        });
      }
    }
    if (watches.length > 0) {
      await tx.query(
        `UPDATE watchlist w SET seen_price = s.price, seen_available = s.available, seen_live = s.live
           FROM unnest($1::uuid[], $2::int[], $3::int[], $4::bool[]) AS s (id, price, available, live)
          WHERE w.id = s.id`,
        [watches.map((w) => w.id), watches.map((w) => w.price), watches.map((w) => w.available), watches.map((w) => w.live)],
      );
    }
    return [...alerted.map((a) => ({ id: a.id, userId: a.user_id })), ...(await insertWatchNotifications(tx, rows))];
  }
}

/** Writes watch notifications in one statement, skipping any whose key exists; answers those written. */
async function insertWatchNotifications(tx: EntityManager, rows: WatchNotification[]): Promise<MatchResult['notified']> {
  if (rows.length === 0) return [];
  const written: Array<{ id: string; user_id: string }> = await tx.query(
    `INSERT INTO notifications (id, user_id, kind, listing_id, item_urn, price, previous_price, dedupe_key)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::text[], $6::int[], $7::int[], $8::text[])
     ON CONFLICT (dedupe_key) DO NOTHING
     RETURNING id, user_id`,
    [
      rows.map(() => newId()),
      rows.map((r) => r.userId),
      rows.map((r) => r.kind),
      rows.map((r) => r.listingId),
      rows.map((r) => r.itemUrn),
      rows.map((r) => r.price),
      rows.map((r) => r.previousPrice),
      rows.map((r) => r.dedupeKey),
    ],
  );
  return written.map((w) => ({ id: w.id, userId: w.user_id }));
}

/** The listings an event names: its listing, or an order's. */
function listingsOf(event: { type: string; data: unknown }): string[] {
  switch (event.type) {
    case 'LISTING_CREATED':
    case 'LISTING_UPDATED':
    case 'LISTING_DELETED':
      return [(event.data as ListingEventData).listingId];
    case 'ORDER_CREATED':
    case 'ORDER_CANCELLED':
      return ((event.data as OrderEventData).listings ?? []).map((l) => l.listingId);
    default:
      return [];
  }
}
