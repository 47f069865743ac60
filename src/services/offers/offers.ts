import { randomUUID } from 'node:crypto';
import type { ListingVariant } from '../../db/entities/listing';
import { QueryFailedError, type DataSource, type EntityManager } from 'typeorm';
import {
  allowedActions,
  NEGOTIATING,
  OPEN,
  type OfferAction,
  type OfferParty,
  type OfferState,
  type OfferStatus,
} from '../../domain/offers/machine';
import { newId } from '../../ids';
import { savedDeliveryAddress } from '../account/addresses';
import { buyerFee, type DeliveryAddress, type DeliveryOptionsOf, type PricedLine } from '../basket/pricing';
import { placeHolds } from '../checkout/holds';
import { pageOf, type Page } from '../paging';
import { conflict, DomainError, forbidden, notFound } from '../errors';
import { loadListingViews, type ListingView } from '../listings/listing-view';
import { loadUserSummaries, type UserSummary } from '../users/user-summary';
import { requestWorkflowStart, type WorkflowStart } from '../workflow-starts';
import type { OfferEngine } from './offer-engine';
import { OFFER_COLUMNS, readListing, stateOf, type OfferHistoryEntry, type OfferRow } from './offer-rows';

/** How the API reaches `offer:{id}` (src/temporal/offer-updates.ts). */
export interface OfferWorkflowPort {
  /**
   * Sends a move as an update-with-start: `start` (the offer's outbox start) starts the workflow
   * when that start still waits in the outbox, and is ignored when it runs. Null when the workflow
   * has finished (it is not started again). Refusals are thrown as DomainErrors.
   */
  act(start: WorkflowStart, action: OfferAction, updateId: string): Promise<OfferState | null>;
}

/** `offer:{offerId}` as the offer's creation starts it, built by the offers module (src/modules/offers.ts). */
export type OfferStart = (offerId: string, listingId: string) => WorkflowStart;

export interface OfferOptions {
  expirySeconds: number;
  maxPerWindow: number;
  windowSeconds: number;
  publicBaseUrl: string;
}

export interface NewOffer {
  listingId: string;
  quantity: number;
  unitPrice: number;
  message?: string;
}

export interface NextAction {
  party: OfferParty;
  action: string;
  dueAt: Date | null;
  afterDue: string | null;
}

/** The Offer resource (docs/offers.md). */
export interface OfferView {
  id: string;
  listing: ListingView | null;
  buyer: UserSummary | null;
  seller: UserSummary | null;
  quantity: number;
  unitPrice: number;
  status: OfferStatus;
  message: string | null;
  history: Array<Omit<OfferHistoryEntry, 'changeId'>>;
  expiresAt: Date | null;
  payBy: Date | null;
  nextActions: NextAction[];
  checkoutUrl: string | null;
  purchaseId: string | null;
  endedReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface OfferFilters {
  status?: OfferStatus[];
  listingId?: string;
  /** Only offers whose running deadline (expiry or payment) falls before this. */
  dueBefore?: Date;
  page: number;
  size: number;
}

export interface OfferCheckoutRequest {
  successUrl: string;
  /** Typed in, or one of the buyer's saved addresses (`addressId`): exactly one of the two. */
  deliveryAddress?: DeliveryAddress;
  addressId?: string;
  deliveryOptionId?: string;
}

/** An offer past negotiating (or whose workflow has ended) takes no more moves. */
const closed = (status: OfferStatus) => conflict('offer-closed', `The offer is ${status.toLowerCase()}; it takes no more actions.`);

const unprocessable = (code: 'offer-not-below-price' | 'offer-quantity-unavailable', message: string) =>
  new DomainError('unprocessable', code, message);

/** A unique violation of the named index (two open offers by one buyer on one listing). */
function uniqueViolation(err: unknown, index: string): boolean {
  if (!(err instanceof QueryFailedError)) return false;
  const e = err.driverError as { code?: string; constraint?: string };
  return e.code === '23505' && e.constraint === index;
}

/**
 * Offers as buyers and sellers see them: making one (every rule checked in one transaction, the
 * thresholds applied at once, `offer:{id}` requested through the start outbox), reading them,
 * moving them through the workflow, and paying an accepted one through a checkout of its own.
 * Every query carries the caller as buyer or seller: another's offer is a 404.
 */
export class Offers {
  constructor(
    private readonly db: DataSource,
    private readonly engine: OfferEngine,
    private readonly workflow: OfferWorkflowPort,
    private readonly offerStart: OfferStart,
    private readonly deliveryOptionsOf: DeliveryOptionsOf,
    private readonly options: OfferOptions,
  ) {}

  async create(buyerId: string, request: NewOffer): Promise<OfferView> {
    const offerId = newId();
    await this.db
      .transaction(async (tx) => {
        // One buyer's offers on one listing are made one at a time: the 48-hour cap holds under races.
        await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`offer:${request.listingId}:${buyerId}`]);
        const listing = await readListing(tx, request.listingId);
        if (!listing || listing.deleted) throw notFound('Listing');
        if (listing.sellerId === buyerId) throw forbidden('offer-own-listing', 'You cannot make an offer on your own listing.');
        if (!listing.offersEnabled) throw conflict('offers-disabled', 'The seller does not take offers on this listing.');
        if (!listing.sellerActive || listing.vacation) throw conflict('offer-seller-away', 'The seller is away and takes no offers now.');
        if (!listing.live) throw conflict('offer-listing-unavailable', 'The listing cannot be bought now.');
        if (request.unitPrice >= listing.price) throw unprocessable('offer-not-below-price', 'An offer must be below the listing price.');
        if (request.quantity > listing.quantity)
          throw unprocessable('offer-quantity-unavailable', 'The listing has fewer units than the offer asks for.');
        await this.checkNotBlocked(tx, buyerId, listing.sellerId);
        const [open]: Array<{ id: string }> = await tx.query(
          `SELECT id FROM offers WHERE listing_id = $1 AND buyer_id = $2 AND status = ANY($3) LIMIT 1`,
          [request.listingId, buyerId, OPEN],
        );
        if (open) throw conflict('offer-already-open', 'You have an open offer on this listing; withdraw it or wait for its answer.');
        const [{ recent }]: [{ recent: number }] = await tx.query(
          `SELECT count(*)::int AS recent FROM offers WHERE listing_id = $1 AND buyer_id = $2 AND created_at > now() - make_interval(secs => $3)`,
          [request.listingId, buyerId, this.options.windowSeconds],
        );
        if (recent >= this.options.maxPerWindow) {
          throw conflict(
            'offer-limit-reached',
            `At most ${this.options.maxPerWindow} offers per listing within ${this.options.windowSeconds / 3600} hours.`,
          );
        }
        const [{ now }]: [{ now: Date }] = await tx.query(`SELECT now()`);
        const expiresAt = new Date(now.getTime() + this.options.expirySeconds * 1000);
        await tx.query(
          `INSERT INTO offers (id, listing_id, buyer_id, seller_id, quantity, unit_price, status, turn, message, expires_at, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, 'PENDING', 'SELLER', $7, $8, $9, $9)`,
          [offerId, listing.id, buyerId, listing.sellerId, request.quantity, request.unitPrice, request.message ?? null, expiresAt, now],
        );
        const [row]: OfferRow[] = await tx.query(`SELECT ${OFFER_COLUMNS} FROM offers o WHERE o.id = $1`, [offerId]);
        const made = { unitPrice: request.unitPrice, quantity: request.quantity };
        const after = await this.engine.offered(
          tx,
          row!,
          listing,
          {
            status: 'PENDING',
            turn: 'SELLER',
            ...made,
            expiresAt,
            payBy: null,
            entries: [{ by: 'BUYER', action: 'offer', ...made, at: now.toISOString() }],
          },
          now,
        );
        // A party's first move starts it too, if it comes first (`act`).
        if (OPEN.includes(after.status)) await requestWorkflowStart(tx, this.offerStart(offerId, listing.id));
      })
      .catch((err: unknown) => {
        if (uniqueViolation(err, 'offers_one_open_per_buyer_listing')) {
          throw conflict('offer-already-open', 'You have an open offer on this listing; withdraw it or wait for its answer.');
        }
        throw err;
      });
    return this.get('BUYER', buyerId, offerId);
  }

  /** A seller who locked a conversation with the buyer has blocked them (docs/conversations.md). */
  private async checkNotBlocked(tx: EntityManager, buyerId: string, sellerId: string): Promise<void> {
    const blocked: unknown[] = await tx.query(
      `SELECT 1 FROM conversations
        WHERE locked_by = $2 AND LEAST(user_a_id, user_b_id) = LEAST($1::uuid, $2::uuid)
          AND GREATEST(user_a_id, user_b_id) = GREATEST($1::uuid, $2::uuid)
        LIMIT 1`,
      [buyerId, sellerId],
    );
    if (blocked.length > 0) throw forbidden('offer-blocked', 'The seller has blocked conversations with you, and offers with them.');
  }

  async list(party: OfferParty, userId: string, f: OfferFilters): Promise<Page<OfferView>> {
    const params: unknown[] = [userId];
    const where = [`${party === 'BUYER' ? 'buyer_id' : 'seller_id'} = $1`];
    if (f.status?.length) where.push(`status = ANY($${params.push(f.status)})`);
    if (f.listingId) where.push(`listing_id = $${params.push(f.listingId)}`);
    if (f.dueBefore) {
      where.push(
        `CASE WHEN status = 'ACCEPTED' THEN pay_by WHEN status IN ('PENDING', 'COUNTERED') THEN expires_at END < $${params.push(f.dueBefore)}`,
      );
    }
    const order = f.dueBefore ? `coalesce(expires_at, pay_by), id` : `created_at DESC, id`;
    const filter = where.join(' AND ');
    const [rows, [{ total }]]: [Array<{ id: string }>, [{ total: number }]] = await Promise.all([
      this.db.query(`SELECT id FROM offers WHERE ${filter} ORDER BY ${order} LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [
        ...params,
        f.size,
        (f.page - 1) * f.size,
      ]),
      this.db.query(`SELECT count(*)::int AS total FROM offers WHERE ${filter}`, params),
    ]);
    const offers = await this.views(
      party,
      rows.map((r) => r.id),
    );
    return pageOf(offers, total, f);
  }

  async get(party: OfferParty, userId: string, offerId: string): Promise<OfferView> {
    await this.owned(party, userId, offerId);
    return (await this.views(party, [offerId]))[0]!;
  }

  /**
   * A party's move, sent to `offer:{id}` as an Update named `updateId` (a retried request is the
   * same Update: Temporal answers its first outcome). Answers the offer as it is afterwards.
   */
  async act(party: OfferParty, userId: string, offerId: string, request: Omit<OfferAction, 'party'>, updateId: string): Promise<OfferView> {
    const { status, listingId } = await this.owned(party, userId, offerId);
    if (!NEGOTIATING.includes(status)) throw closed(status);
    const action: OfferAction = { ...request, party };
    // An offer made moments ago may have its start still in the outbox: the move starts the
    // workflow with the input that start carries (rebuilt from the row), and that start then finds it running.
    if ((await this.workflow.act(this.offerStart(offerId, listingId), action, updateId)) === null) {
      // The workflow ended since the check above (its last write closed the offer).
      throw closed((await this.owned(party, userId, offerId)).status);
    }
    return this.get(party, userId, offerId);
  }

  /**
   * The checkout of an accepted offer: a payment session whose one line carries the agreed unit
   * price, holding the units the acceptance held, payable until `payBy` through the same payment
   * page as any checkout. An open one is answered again; after a failed payment a new one holds
   * the units again (409 `offer-stock-unavailable` when they were taken meanwhile).
   */
  async checkout(buyerId: string, offerId: string, request: OfferCheckoutRequest): Promise<{ url: string; sessionId: string }> {
    await this.owned('BUYER', buyerId, offerId);
    const deliveryAddress = request.addressId ? await savedDeliveryAddress(this.db, buyerId, request.addressId) : request.deliveryAddress!;
    const sessionId = await this.db.transaction(async (tx) => {
      // The offer's open session first, then the offer: the lock order of a payment and of the lapse.
      const [open]: Array<{ id: string }> = await tx.query(
        `SELECT id FROM checkout_sessions WHERE offer_id = $1 AND status = 'OPEN' AND expires_at > now() FOR UPDATE`,
        [offerId],
      );
      const [o]: OfferRow[] = await tx.query(`SELECT ${OFFER_COLUMNS} FROM offers o WHERE o.id = $1 FOR UPDATE`, [offerId]);
      const [{ now }]: [{ now: Date }] = await tx.query(`SELECT now()`);
      if (!o || o.status !== 'ACCEPTED' || !o.payBy || o.payBy <= now) {
        throw conflict('offer-not-accepted', 'Only an accepted offer, before its payment deadline, has a checkout.');
      }
      if (open) return open.id;
      const [l]: Array<{ item_urn: string; condition: string; language: string; variants: ListingVariant[]; comment: string }> =
        await tx.query(`SELECT item_urn, condition, language, variants, comment FROM listings WHERE id = $1`, [o.listingId]);
      const options = await this.deliveryOptionsOf(o.sellerId, deliveryAddress.country);
      const option = options.find((d) => d.id === request.deliveryOptionId) ?? (request.deliveryOptionId ? undefined : options[0]);
      if (!option) throw conflict('offer-no-delivery', 'The seller does not deliver there (or not with that option).');
      const subtotal = o.unitPrice * o.quantity;
      const line: PricedLine = {
        listingId: o.listingId,
        sellerId: o.sellerId,
        urn: l!.item_urn,
        condition: l!.condition,
        language: l!.language,
        variants: l!.variants,
        comment: l!.comment,
        quantity: o.quantity,
        price: o.unitPrice,
        lineTotal: subtotal,
        available: o.quantity,
        problem: null,
      };
      const deliveryOption = { id: option.id, name: option.name, price: option.price, tracked: option.tracked };
      const fee = buyerFee(subtotal);
      const id = randomUUID();
      await tx.query(
        `INSERT INTO checkout_sessions (id, basket_id, offer_id, buyer_id, status, success_url, lines, sellers, subtotal, delivery, fee, total,
                                        delivery_address, expires_at)
         VALUES ($1, NULL, $2, $3, 'OPEN', $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [
          id,
          offerId,
          buyerId,
          request.successUrl,
          JSON.stringify([line]),
          JSON.stringify([
            { sellerId: o.sellerId, subtotal, deliveryOption, deliveryCharge: option.price, total: subtotal + option.price },
          ]),
          subtotal,
          option.price,
          fee,
          subtotal + option.price + fee,
          JSON.stringify(deliveryAddress),
          o.payBy,
        ],
      );
      // The acceptance's hold moves to the session; a failed payment released it, so it is placed again.
      const [moved]: [unknown[]] = await tx.query(
        `UPDATE listing_holds SET checkout_id = $2 WHERE checkout_id = $1 AND released_at IS NULL RETURNING id`,
        [offerId, id],
      );
      if (moved.length === 0) {
        const failed = await placeHolds(tx, id, [{ listingId: o.listingId, quantity: o.quantity }], o.payBy);
        if (failed.length > 0)
          throw conflict('offer-stock-unavailable', 'The units were taken after a failed payment; the offer cannot be paid now.');
      }
      await tx.query(`UPDATE offers SET checkout_id = $2, updated_at = now() WHERE id = $1`, [offerId, id]);
      return id;
    });
    return { url: `${this.options.publicBaseUrl}/pay/${sessionId}`, sessionId };
  }

  private async owned(party: OfferParty, userId: string, offerId: string): Promise<{ status: OfferStatus; listingId: string }> {
    const [row]: Array<{ status: OfferStatus; listingId: string }> = await this.db.query(
      `SELECT status, listing_id AS "listingId" FROM offers WHERE id = $1 AND ${party === 'BUYER' ? 'buyer_id' : 'seller_id'} = $2`,
      [offerId, userId],
    );
    if (!row) throw notFound('Offer');
    return row;
  }

  /** Offer views by id, in the order given, with a fixed number of queries. */
  private async views(party: OfferParty, ids: string[]): Promise<OfferView[]> {
    if (ids.length === 0) return [];
    const rows: Array<OfferRow & { sessionOpen: boolean }> = await this.db.query(
      `SELECT ${OFFER_COLUMNS}, coalesce(c.status = 'OPEN' AND c.expires_at > now(), false) AS "sessionOpen"
         FROM offers o LEFT JOIN checkout_sessions c ON c.id = o.checkout_id WHERE o.id = ANY($1::uuid[])`,
      [ids],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const ordered = ids.map((id) => byId.get(id)!).filter(Boolean);
    const [listings, users] = await Promise.all([
      loadListingViews(this.db, [...new Set(ordered.map((o) => o.listingId))], { includePrivate: party === 'SELLER' }),
      loadUserSummaries(
        this.db,
        ordered.flatMap((o) => [o.buyerId, o.sellerId]),
      ),
    ]);
    const listingById = new Map(listings.map((l) => [l.id, l]));
    return ordered.map((o) => ({
      id: o.id,
      listing: listingById.get(o.listingId) ?? null,
      buyer: users.get(o.buyerId) ?? null,
      seller: users.get(o.sellerId) ?? null,
      quantity: o.quantity,
      unitPrice: o.unitPrice,
      status: o.status,
      message: o.message,
      history: o.history.map(({ changeId: _, ...h }) => h),
      expiresAt: o.expiresAt,
      payBy: o.payBy,
      nextActions: nextActions(o),
      checkoutUrl: o.sessionOpen && o.checkoutId ? `${this.options.publicBaseUrl}/pay/${o.checkoutId}` : null,
      purchaseId: o.purchaseId,
      endedReason: o.endedReason,
      createdAt: o.createdAt,
      updatedAt: o.updatedAt,
    }));
  }
}

/** Whose moves the offer awaits and by when: the parties' actions while negotiating, the buyer's payment once accepted. */
function nextActions(o: OfferRow): NextAction[] {
  const state = stateOf(o);
  if (o.status === 'ACCEPTED') return [{ party: 'BUYER', action: 'pay', dueAt: o.payBy, afterDue: 'lapse' }];
  return (['SELLER', 'BUYER'] as const).flatMap((party) =>
    allowedActions(state, party).map((action) => ({ party, action, dueAt: o.expiresAt, afterDue: 'expire' })),
  );
}
