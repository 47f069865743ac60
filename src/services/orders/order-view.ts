import type { DataSource, EntityManager } from 'typeorm';
import type { ListingVariant } from '../../db/entities/listing';
import type { Party } from '../../domain/cases/machine';
import { deadline, earliest, type NextAction, type Periods } from '../../domain/deadlines';
import {
  cancellationRequestStatus,
  nextActions,
  type CancellationRequestStatus,
  type OrderActionName,
  type OrderItemStatus,
  type OrderStatus,
} from '../../domain/orders/order-machine';
import { orderNextActions } from '../../domain/orders/order-next-actions';
import type { TrackingSource } from '../../domain/orders/tracking-source';
import { loadCaseViews, type CaseView } from '../cases/case-view';
import type { DeliveryAddress } from '../basket/pricing';
import { loadItems, type ItemView } from '../catalog/item-view';
import { adjustmentsOfOrders, type AdjustmentView } from '../money/refunds';
import { transfersOfOrders, type TransferView } from '../money/transfers';
import { loadUserSummaries, type UserSummary } from '../users/user-summary';
import { loadShipmentAttachments, type ShipmentAttachmentView } from './shipment-attachments';

/** Inside an order item the embedded item carries the Item fields up to `available` only (spec). */
export type OrderItemItem = Omit<ItemView, 'quantity' | 'min' | 'max'>;

export interface OrderItemView {
  id: string;
  listingId: string;
  orderId: string;
  urn: string;
  price: number;
  quantity: number;
  condition: string;
  language: string;
  createdAt: Date;
  updatedAt: Date;
  item: OrderItemItem | null;
  status: OrderItemStatus;
  variants: ListingVariant[];
  comment: string;
  shipmentId: string | null;
}

export interface ShipmentView {
  id: string;
  orderId: string;
  trackingNumber: string;
  trackingStatus: string;
  trackingStatusDetail: string;
  /** Where the status comes from (src/integrations/carriers/port.ts, TRACKING_SOURCES). */
  trackingSource: TrackingSource;
  trackingUrl: string;
  carrier: string;
  createdAt: Date;
  updatedAt: Date;
  /** Proof-of-postage images (docs/sellers-operators.md). */
  attachments: ShipmentAttachmentView[];
}

/** The spec's Seller order (full detail); buyers see their orders in the same shape. */
export interface OrderView {
  id: string;
  sellerId: string;
  purchaseId: string;
  status: OrderStatus;
  deliveryCharge: number;
  subtotal: number;
  total: number;
  createdAt: Date;
  updatedAt: Date;
  items: OrderItemView[];
  shipments: ShipmentView[];
  purchase: { deliveryAddress: DeliveryAddress; user: UserSummary | null };
  cases: CaseView[];
  /** Refunds of accepted REFUND outcomes (docs/money.md). */
  adjustments: AdjustmentView[];
  /** The seller share's release to available and any reversal of it (docs/money.md); always empty for the buyer. */
  transfers: TransferView[];
  /** Reviewer user id → that reviewer's rating. */
  reviews: Record<string, number>;
  /** What the viewer may do with the order now, from the order status table (`nextActions`). */
  actions: OrderActionName[];
  /** Whose move the order waits for and by when, for both parties alike (docs/checkout-orders.md "Next actions"). */
  nextActions: NextAction[];
  /** The buyer's request to cancel before shipment, once made. */
  cancellationRequest: CancellationRequestView | null;
  deadlines: {
    /** When a SHIPPED order is received automatically; null in any other status. */
    autoReceiptAt: Date | null;
  };
}

export interface CancellationRequestView {
  status: CancellationRequestStatus;
  requestedAt: Date;
  /** When the seller cancelled, declined or shipped; null while PENDING. */
  answeredAt: Date | null;
}

interface OrderRow {
  id: string;
  sellerId: string;
  purchaseId: string;
  buyerId: string;
  status: OrderStatus;
  deliveryCharge: number;
  subtotal: number;
  total: number;
  createdAt: Date;
  updatedAt: Date;
  shippedAt: Date | null;
  deliveredAt: Date | null;
  cancellationRequestedAt: Date | null;
  cancellationDeclinedAt: Date | null;
  cancelledAt: Date | null;
  deliveryAddress: DeliveryAddress;
}

function cancellationRequestOf(o: OrderRow): CancellationRequestView | null {
  const status = cancellationRequestStatus({
    requestedAt: o.cancellationRequestedAt,
    declinedAt: o.cancellationDeclinedAt,
    cancelledAt: o.cancelledAt,
  });
  if (!status) return null;
  const answeredAt = status === 'ACCEPTED' ? o.cancelledAt : status === 'DECLINED' ? o.cancellationDeclinedAt : null;
  return { status, requestedAt: o.cancellationRequestedAt!, answeredAt };
}

const group = <T extends Record<K, string>, K extends keyof T>(rows: T[], key: K) => {
  const map = new Map<string, T[]>();
  for (const row of rows) map.set(row[key], [...(map.get(row[key]) ?? []), row]);
  return map;
};

/**
 * Full order views for the given ids, in that order, with a fixed number of queries (items,
 * catalog items, shipments and their attachments, cases, reviews, buyers), never one per order. Callers have already
 * filtered the ids by ownership. `viewer` decides what the cases show (a seller's return
 * address stays hidden from buyers until accepted) and whose next actions are listed.
 */
export async function loadOrderViews(
  db: DataSource | EntityManager,
  orderIds: string[],
  viewer: Party,
  periods: Periods,
): Promise<OrderView[]> {
  if (orderIds.length === 0) return [];
  const orders: OrderRow[] = await db.query(
    `SELECT o.id, o.seller_id AS "sellerId", o.purchase_id AS "purchaseId", o.buyer_id AS "buyerId", o.status,
            o.delivery_charge AS "deliveryCharge", o.subtotal, o.total, o.created_at AS "createdAt", o.updated_at AS "updatedAt",
            o.shipped_at AS "shippedAt", o.delivered_at AS "deliveredAt", o.cancellation_requested_at AS "cancellationRequestedAt",
            o.cancellation_declined_at AS "cancellationDeclinedAt", o.cancelled_at AS "cancelledAt", p.delivery_address AS "deliveryAddress"
       FROM orders o JOIN purchases p ON p.id = o.purchase_id WHERE o.id = ANY($1)`,
    [orderIds],
  );
  const [items, shipments, cases, reviews] = await Promise.all([
    db.query(
      `SELECT id, listing_id AS "listingId", order_id AS "orderId", urn, price, quantity, condition, language,
              created_at AS "createdAt", updated_at AS "updatedAt", status, variants, comment, shipment_id AS "shipmentId"
         FROM order_items WHERE order_id = ANY($1) ORDER BY created_at, id`,
      [orderIds],
    ) as Promise<Array<Omit<OrderItemView, 'item'>>>,
    db.query(
      `SELECT id, order_id AS "orderId", tracking_number AS "trackingNumber", tracking_status AS "trackingStatus",
              tracking_status_detail AS "trackingStatusDetail", tracking_source AS "trackingSource", tracking_url AS "trackingUrl", carrier,
              created_at AS "createdAt", updated_at AS "updatedAt"
         FROM shipments WHERE order_id = ANY($1) ORDER BY created_at, id`,
      [orderIds],
    ) as Promise<Array<Omit<ShipmentView, 'attachments'>>>,
    db.query(`SELECT id FROM cases WHERE order_id = ANY($1) ORDER BY created_at, id`, [orderIds]).then((rows: Array<{ id: string }>) =>
      loadCaseViews(
        db,
        rows.map((r) => r.id),
        viewer,
        periods,
      ),
    ),
    db.query(
      `SELECT order_id AS "orderId", reviewer_id AS "reviewerId", rating FROM reviews WHERE order_id = ANY($1) AND deleted_at IS NULL`,
      [orderIds],
    ) as Promise<Array<{ orderId: string; reviewerId: string; rating: number }>>,
  ]);
  const [catalog, buyers, transfers, adjustments, attachments] = await Promise.all([
    loadItems(
      db,
      items.map((i) => i.urn),
    ),
    loadUserSummaries(
      db,
      orders.map((o) => o.buyerId),
    ),
    viewer === 'SELLER' ? transfersOfOrders(db, orderIds) : new Map<string, TransferView[]>(),
    adjustmentsOfOrders(db, orderIds),
    loadShipmentAttachments(
      db,
      shipments.map((sh) => sh.id),
    ),
  ]);
  const itemsOf = group(items, 'orderId');
  const shipmentsOf = group(
    shipments.map((sh) => ({ ...sh, attachments: attachments.get(sh.id) ?? [] })),
    'orderId',
  );
  const casesOf = group(cases, 'orderId');
  const reviewsOf = group(reviews, 'orderId');
  const byId = new Map(orders.map((o) => [o.id, o]));
  return orderIds
    .map((id) => byId.get(id))
    .filter((o): o is OrderRow => o !== undefined)
    .map((o) => {
      const cancellationRequest = cancellationRequestOf(o);
      // The receipt timer's rule: the earlier of shipping + 21 days and delivery + 3 days.
      const autoReceiptAt =
        o.status === 'SHIPPED'
          ? earliest(deadline(o.shippedAt, periods.autoReceiptSeconds), deadline(o.deliveredAt, periods.deliveredReceiptSeconds))
          : null;
      return {
        id: o.id,
        sellerId: o.sellerId,
        purchaseId: o.purchaseId,
        status: o.status,
        deliveryCharge: o.deliveryCharge,
        subtotal: o.subtotal,
        total: o.total,
        createdAt: o.createdAt,
        updatedAt: o.updatedAt,
        items: (itemsOf.get(o.id) ?? []).map((i) => ({ ...i, item: orderItemItem(catalog.get(i.urn)) })),
        shipments: shipmentsOf.get(o.id) ?? [],
        purchase: { deliveryAddress: o.deliveryAddress, user: buyers.get(o.buyerId) ?? null },
        cases: casesOf.get(o.id) ?? [],
        adjustments: adjustments.get(o.id) ?? [],
        // The seller's share, fee and recoveries are the seller's business: a buyer sees their own money only (adjustments).
        transfers: transfers.get(o.id) ?? [],
        reviews: Object.fromEntries((reviewsOf.get(o.id) ?? []).map((r) => [r.reviewerId, r.rating])),
        actions: nextActions(o.status, viewer === 'SELLER' ? 'seller' : 'buyer', cancellationRequest?.status ?? null),
        nextActions: orderNextActions({ status: o.status, createdAt: o.createdAt, autoReceiptAt, cancellationRequest }, periods),
        cancellationRequest,
        deadlines: { autoReceiptAt },
      };
    });
}

function orderItemItem(item: ItemView | undefined): OrderItemItem | null {
  if (!item) return null;
  const { quantity: _quantity, min: _min, max: _max, ...upToAvailable } = item;
  return upToAvailable;
}
