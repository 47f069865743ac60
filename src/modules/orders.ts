import { createOrderActivities } from '../../activities/orders';
import { createTrackingActivities } from '../../activities/tracking';
import { sellerOrderRoutes } from '../http/routes/seller-orders';
import { orderDeliveredSignal, trackingNumberChangedSignal, type TrackingPolicy } from '../../workflows/contracts/shipment-tracking';
import type { OrderActionStarts, OrderUpdates } from '../services/orders/order-updates';
import { SellerOrders } from '../services/orders/seller-orders';
import { ShipmentAttachments } from '../services/orders/shipment-attachments';
import type { ShipmentTracking } from '../services/orders/shipment-tracking';
import type { FeatureModule } from './feature-module';
import { caseStarts } from './cases';
import { emailDeliveryStart } from './email';
import { fundsReleaseStart } from './money';
import { reviewWindowStart } from './reviews';
import { orderTimings, periodsOf, shipmentTracking } from './timings';
import { start } from './workflow-start';

/** What the seller order routes use. */
export interface OrdersServices {
  orderUpdates: OrderUpdates;
  sellerOrders: SellerOrders;
  shipmentTracking: ShipmentTracking;
  shipmentAttachments: ShipmentAttachments;
}

/** The ids of this feature's workflows: an operator finds one from the object's id. */
export const ordersWorkflowIds = {
  orderReceipt: (orderId: string) => `order-receipt:${orderId}`,
  shipmentTracking: (shipmentId: string) => `shipment-tracking:${shipmentId}`,
};

/** The order's automatic receipt, and its shipments' carrier tracking. */
export const orderStarts = {
  orderReceipt(orderId: string, afterSeconds: number) {
    return start(
      'orderReceiptWorkflow',
      ordersWorkflowIds.orderReceipt(orderId),
      { orderId, afterSeconds },
      { summary: `Automatic receipt of shipped order ${orderId} after ${afterSeconds} s` },
    );
  },

  /**
   * Every shipment of the order is delivered: a signal-with-start of `order-receipt:{orderId}`
   * that brings the receipt forward to `deliveredReceiptSeconds` from now. Whichever of the
   * shipping start and this the dispatcher reaches first, the timer ends at the earlier time;
   * after the order was received (workflow closed) REJECT_DUPLICATE makes it a no-op.
   */
  orderDelivered(orderId: string, autoReceiptSeconds: number, deliveredReceiptSeconds: number) {
    return start(
      'orderReceiptWorkflow',
      ordersWorkflowIds.orderReceipt(orderId),
      { orderId, afterSeconds: autoReceiptSeconds },
      {
        signal: { name: orderDeliveredSignal.name, args: [{ receiptSeconds: deliveredReceiptSeconds }] },
        // The same summary as the plain start: whichever request starts the workflow sets it.
        summary: `Automatic receipt of shipped order ${orderId} after ${autoReceiptSeconds} s`,
      },
      orderDeliveredSignal.name,
    );
  },

  /** `shipment-tracking:{shipmentId}`, started with its shipment. */
  shipmentTracking(shipmentId: string, policy: TrackingPolicy) {
    return start(
      'shipmentTrackingWorkflow',
      ordersWorkflowIds.shipmentTracking(shipmentId),
      { shipmentId, policy },
      { summary: `Carrier tracking of shipment ${shipmentId}` },
    );
  },

  /**
   * The seller corrected the tracking number: a signal-with-start, so a running tracking polls
   * the new number at once, and one that had ended (delivered or given up under the old number)
   * runs again (ALLOW_DUPLICATE). Each correction is its own request.
   */
  shipmentTrackingChanged(shipmentId: string, policy: TrackingPolicy, correctionId: string) {
    return start(
      'shipmentTrackingWorkflow',
      ordersWorkflowIds.shipmentTracking(shipmentId),
      { shipmentId, policy },
      {
        reusePolicy: 'ALLOW_DUPLICATE',
        signal: { name: trackingNumberChangedSignal.name, args: [] },
        summary: `Carrier tracking of shipment ${shipmentId}`,
      },
      `tracking-number:${correctionId}`,
    );
  },
};

/**
 * What an order action requests, from every module whose workflow it starts: the shared
 * `orderUpdates` of the API (src/composition.ts) and the worker's order activities use the same.
 */
export const orderActionStarts: OrderActionStarts = {
  ...caseStarts,
  fundsRelease: fundsReleaseStart,
  reviewWindow: reviewWindowStart,
  emailDelivery: emailDeliveryStart,
  shipmentTracking: orderStarts.shipmentTracking,
  orderReceipt: orderStarts.orderReceipt,
};

/**
 * Orders sold (docs/checkout-orders.md, docs/sellers-operators.md): the seller's order list,
 * shipping with tracking numbers and attachments, cancellation; in the worker, the
 * `order-receipt:{orderId}` workflow's automatic receipt and the `shipment-tracking:{shipmentId}`
 * workflow's carrier polls. Order actions themselves (`orderUpdates`) are shared: buyers, sellers,
 * operators and the worker all move orders through the same rules and transaction.
 */
export const ordersModule: FeatureModule<OrdersServices> = {
  name: 'orders',
  tags: {
    'Seller orders': 'Orders sold: shipping, cancelling, disputes from the seller side.',
  },
  api: {
    services: ({ config, db, shared }) => ({
      orderUpdates: shared.orderUpdates,
      sellerOrders: new SellerOrders(db, periodsOf(config)),
      shipmentTracking: shipmentTracking(config, db, orderStarts),
      shipmentAttachments: new ShipmentAttachments(db, shared.uploads),
    }),
    routes: (services) => sellerOrderRoutes(services),
  },
  worker: {
    activities: ({ config, db }) => ({
      ...createOrderActivities({ db, orderTimings: orderTimings(config), starts: orderActionStarts }),
      ...createTrackingActivities({ shipmentTracking: shipmentTracking(config, db, orderStarts) }),
    }),
  },
};
