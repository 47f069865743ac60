import type { EntityManager } from 'typeorm';
import type { OfferHistoryAction, OfferParty, OfferState, OfferStatus } from '../../domain/offers/machine';
import { enqueueEmail } from '../../integrations/email/outbox';
import { emitEvents } from '../events/outbox';
import { requestWorkflowStart, requestWorkflowStarts, type WorkflowStart } from '../workflow-starts';

/** Who made a move: a party, or the service on its own (thresholds, deadlines, listing changes). */
export type OfferActor = OfferParty | 'SYSTEM';

/** One move in an offer's history, as the Offer shows it (`changeId` is kept, never shown). */
export interface OfferHistoryEntry {
  by: OfferActor;
  action: OfferHistoryAction;
  unitPrice: number;
  quantity: number;
  at: string;
  reason?: string;
  changeId?: string;
}

/** An offer row as the services read it. */
export interface OfferRow {
  id: string;
  listingId: string;
  buyerId: string;
  sellerId: string;
  quantity: number;
  unitPrice: number;
  status: OfferStatus;
  turn: OfferParty | null;
  message: string | null;
  history: OfferHistoryEntry[];
  expiresAt: Date | null;
  payBy: Date | null;
  checkoutId: string | null;
  purchaseId: string | null;
  endedReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const OFFER_COLUMNS = `o.id, o.listing_id AS "listingId", o.buyer_id AS "buyerId", o.seller_id AS "sellerId", o.quantity,
  o.unit_price AS "unitPrice", o.status, o.turn, o.message, o.history, o.expires_at AS "expiresAt", o.pay_by AS "payBy",
  o.checkout_id AS "checkoutId", o.purchase_id AS "purchaseId", o.ended_reason AS "endedReason", o.created_at AS "createdAt",
  o.updated_at AS "updatedAt"`;

/** The offer, locked for the caller's transaction; undefined when there is none. */
export async function lockOffer(tx: EntityManager, offerId: string): Promise<OfferRow | undefined> {
  const [row]: OfferRow[] = await tx.query(`SELECT ${OFFER_COLUMNS} FROM offers o WHERE o.id = $1 FOR UPDATE`, [offerId]);
  return row;
}

export const stateOf = (o: Pick<OfferRow, 'status' | 'turn' | 'unitPrice' | 'quantity'>): OfferState => ({
  status: o.status,
  turn: o.turn,
  unitPrice: o.unitPrice,
  quantity: o.quantity,
});

/** The listing as an offer's rules read it, with its seller's account. */
export interface OfferListing {
  id: string;
  sellerId: string;
  urn: string;
  price: number;
  quantity: number;
  reserved: number;
  deleted: boolean;
  live: boolean;
  offersEnabled: boolean;
  autoAcceptAt: number | null;
  autoDeclineBelow: number | null;
  sellerActive: boolean;
  vacation: boolean;
}

export async function readListing(tx: EntityManager, listingId: string): Promise<OfferListing | undefined> {
  const [row]: OfferListing[] = await tx.query(
    `SELECT l.id, l.seller_id AS "sellerId", l.item_urn AS urn, l.price, l.quantity, l.reserved, l.deleted_at IS NOT NULL AS deleted,
            (l.deleted_at IS NULL AND NOT l.hidden AND l.valid AND l.quantity > l.reserved) AS live,
            l.offers_enabled AS "offersEnabled", l.offer_auto_accept_at AS "autoAcceptAt",
            l.offer_auto_decline_below AS "autoDeclineBelow", coalesce(sa.status = 'ACTIVE', false) AS "sellerActive",
            coalesce(sa.vacation, false) AS vacation
       FROM listings l LEFT JOIN seller_accounts sa ON sa.user_id = l.seller_id
      WHERE l.id = $1`,
    [listingId],
  );
  return row;
}

/** What changes in one write of an offer; every write appends `entries` to its history. */
export interface OfferWrite {
  status: OfferStatus;
  turn: OfferParty | null;
  unitPrice: number;
  quantity: number;
  expiresAt: Date | null;
  payBy: Date | null;
  endedReason?: string | null;
  purchaseId?: string | null;
  entries: OfferHistoryEntry[];
}

export async function writeOffer(tx: EntityManager, offerId: string, w: OfferWrite): Promise<void> {
  await tx.query(
    `UPDATE offers SET status = $2, turn = $3, unit_price = $4, quantity = $5, expires_at = $6, pay_by = $7,
            ended_reason = coalesce($8, ended_reason), purchase_id = coalesce($9, purchase_id),
            history = history || $10::jsonb, updated_at = now()
      WHERE id = $1`,
    [
      offerId,
      w.status,
      w.turn,
      w.unitPrice,
      w.quantity,
      w.expiresAt,
      w.payBy,
      w.endedReason ?? null,
      w.purchaseId ?? null,
      JSON.stringify(w.entries),
    ],
  );
}

const EVENT_OF: Partial<Record<OfferStatus, 'OFFER_ACCEPTED' | 'OFFER_DECLINED' | 'OFFER_EXPIRED'>> = {
  ACCEPTED: 'OFFER_ACCEPTED',
  DECLINED: 'OFFER_DECLINED',
  WITHDRAWN: 'OFFER_DECLINED',
  EXPIRED: 'OFFER_EXPIRED',
  LAPSED: 'OFFER_EXPIRED',
};

/**
 * The seller's webhook event for an offer that was made (or countered by the buyer) or reached
 * `status`, in the caller's transaction. Statuses without an event (COUNTERED by the seller, PAID) emit none.
 */
export async function emitOfferEvent(
  tx: EntityManager,
  offer: Pick<OfferRow, 'id' | 'listingId' | 'buyerId' | 'sellerId'>,
  at: Date,
  after: { status: OfferStatus; unitPrice: number; quantity: number; reason?: string | null; received?: boolean },
): Promise<void> {
  const type = after.received ? 'OFFER_RECEIVED' : EVENT_OF[after.status];
  if (!type) return;
  await emitEvents(tx, type, [
    {
      sellerId: offer.sellerId,
      createdAt: at.toISOString(),
      offerId: offer.id,
      listingId: offer.listingId,
      buyerId: offer.buyerId,
      quantity: after.quantity,
      unitPrice: after.unitPrice,
      status: after.status,
      ...(after.reason ? { reason: after.reason } : {}),
    },
  ]);
}

/**
 * The starts an offer's change requests wherever it happens (a move, a listing's write, a
 * checkout's payment), built by the modules that own their workflows (src/modules/offers.ts
 * gathers them).
 */
export interface OfferChangeStarts {
  /** The offer's listing or payment changed: `offer:{offerId}` reads its offer again (one request per change). */
  offerChanged(offerId: string): WorkflowStart;
  /** The delivery of one e-mail queued in the outbox. */
  emailDelivery(messageId: string): WorkflowStart;
}

const pounds = (pence: number) => `£${(pence / 100).toFixed(2)}`;

/**
 * Tells the parties of a move by e-mail (the e-mail outbox, delivered by its own workflow): a
 * party's move goes to the other party, the service's own moves to both.
 */
export async function notifyParties(
  tx: EntityManager,
  offer: Pick<OfferRow, 'id' | 'buyerId' | 'sellerId'>,
  by: OfferActor,
  what: string,
  after: { status: OfferStatus; unitPrice: number; quantity: number },
  starts: OfferChangeStarts,
): Promise<void> {
  const recipients = by === 'BUYER' ? [offer.sellerId] : by === 'SELLER' ? [offer.buyerId] : [offer.buyerId, offer.sellerId];
  const users: Array<{ email: string }> = await tx.query(`SELECT email FROM users WHERE id = ANY($1::uuid[]) ORDER BY id`, [recipients]);
  const ids: string[] = [];
  for (const { email } of users) {
    ids.push(
      await enqueueEmail(tx, {
        to: email,
        kind: 'offer-update',
        subject: `Offer ${offer.id}: ${after.status.toLowerCase()}`,
        text: `${what}: ${after.quantity} × ${pounds(after.unitPrice)}. The offer is now ${after.status}.\n\nSee your offers in the marketplace for details.`,
      }),
    );
  }
  await requestWorkflowStarts(
    tx,
    ids.map((id) => starts.emailDelivery(id)),
  );
}

/**
 * The open offers on these listings hear that their listing changed (repriced, sold, deleted):
 * each workflow reads its offer again and ends it when the listing no longer supports it
 * (docs/offers.md, "Listing changes"). In the caller's transaction, through the start outbox.
 */
export async function noticeOpenOffers(tx: EntityManager, listingIds: string[], starts: OfferChangeStarts): Promise<void> {
  if (listingIds.length === 0) return;
  const open: Array<{ id: string }> = await tx.query(
    `SELECT id FROM offers WHERE listing_id = ANY($1::uuid[]) AND status IN ('PENDING', 'COUNTERED') ORDER BY id`,
    [listingIds],
  );
  for (const { id } of open) await requestWorkflowStart(tx, starts.offerChanged(id));
}

/**
 * The accepted offer's checkout was paid (in the payment's transaction, the one gate that makes
 * it happen once): the offer is PAID, the seller is told, and its workflow hears of it.
 */
export async function offerPaid(
  tx: EntityManager,
  offerId: string,
  purchaseId: string,
  at: Date,
  starts: OfferChangeStarts,
): Promise<void> {
  const [[o]]: [OfferRow[]] = await tx.query(
    `UPDATE offers o SET status = 'PAID', purchase_id = $2, updated_at = now(),
            history = history || jsonb_build_array(jsonb_build_object('by', 'BUYER', 'action', 'pay', 'unitPrice', unit_price,
              'quantity', quantity, 'at', $3::text))
      WHERE id = $1 AND status = 'ACCEPTED' RETURNING ${OFFER_COLUMNS}`,
    [offerId, purchaseId, at.toISOString()],
  );
  if (!o) return;
  await notifyParties(
    tx,
    o,
    'BUYER',
    'The buyer paid the accepted offer',
    {
      status: 'PAID',
      unitPrice: o.unitPrice,
      quantity: o.quantity,
    },
    starts,
  );
  await requestWorkflowStart(tx, starts.offerChanged(offerId));
}
