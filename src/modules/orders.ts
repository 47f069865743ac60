import { createOrderActivities } from '../../activities/orders';
import { createTrackingActivities } from '../../activities/tracking';
import { sellerOrderRoutes } from '../http/routes/seller-orders';
import type { OrderUpdates } from '../services/orders/order-updates';
import { SellerOrders } from '../services/orders/seller-orders';
import { ShipmentAttachments } from '../services/orders/shipment-attachments';
import type { ShipmentTracking } from '../services/orders/shipment-tracking';
import type { FeatureModule } from './feature-module';
import { orderTimings, periodsOf, shipmentTracking } from './timings';

/** What the seller order routes use. */
export interface OrdersServices {
  orderUpdates: OrderUpdates;
  sellerOrders: SellerOrders;
  shipmentTracking: ShipmentTracking;
  shipmentAttachments: ShipmentAttachments;
}

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
      shipmentTracking: shipmentTracking(config, db),
      shipmentAttachments: new ShipmentAttachments(db, shared.uploads),
    }),
    routes: (services) => sellerOrderRoutes(services),
  },
  worker: {
    activities: ({ config, db }) => ({
      ...createOrderActivities({ db, orderTimings: orderTimings(config) }),
      ...createTrackingActivities({ shipmentTracking: shipmentTracking(config, db) }),
    }),
  },
};
