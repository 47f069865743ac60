import type { DataSource } from 'typeorm';
import type { Config } from '../config';
import type { Periods } from '../domain/deadlines';
import { createCarrier } from '../integrations/carriers';
import type { OrderTimings } from '../services/orders/order-updates';
import { ShipmentTracking, type ShipmentTrackingStarts } from '../services/orders/shipment-tracking';

/**
 * The configured periods orders, cases and reviews count their deadlines with, read once here:
 * the API's order actions and the worker's activities start the same timers, and the checkout,
 * orders and cases modules show the same deadlines.
 */
export function periodsOf(config: Config): Periods {
  return {
    autoReceiptSeconds: config.orders.autoReceiptSeconds,
    deliveredReceiptSeconds: config.orders.deliveredReceiptSeconds,
    autoEscalateSeconds: config.cases.autoEscalateSeconds,
    reviewWindowSeconds: config.reviews.windowSeconds,
    dispatchSeconds: config.orders.dispatchSeconds,
    cancellationAnswerSeconds: config.orders.cancellationAnswerSeconds,
    decisionSeconds: config.cases.decisionSeconds,
  };
}

/** The periods order actions start their timers with; the worker's activities use the same. */
export function orderTimings(config: Config): OrderTimings {
  return {
    autoEscalateSeconds: config.cases.autoEscalateSeconds,
    autoReceiptSeconds: config.orders.autoReceiptSeconds,
    reviewWindowSeconds: config.reviews.windowSeconds,
    fundsHoldSeconds: config.money.fundsHoldSeconds,
    tracking: trackingPolicy(config),
  };
}

const trackingPolicy = (config: Config) => ({
  pollSeconds: config.tracking.pollSeconds,
  pollMaxSeconds: config.tracking.pollMaxSeconds,
  giveUpSeconds: config.tracking.giveUpSeconds,
});

/** Shipment tracking over the configured carrier: the API corrects numbers, the worker polls. */
export function shipmentTracking(config: Config, db: DataSource, starts: ShipmentTrackingStarts): ShipmentTracking {
  const carrier = createCarrier({
    provider: config.tracking.carrierProvider,
    simulatorStepSeconds: config.tracking.simulatorStepSeconds,
    easypostApiKey: config.tracking.easypostApiKey,
    easypostUrl: config.tracking.easypostUrl,
  });
  return new ShipmentTracking(
    db,
    carrier,
    {
      autoReceiptSeconds: config.orders.autoReceiptSeconds,
      deliveredReceiptSeconds: config.orders.deliveredReceiptSeconds,
      tracking: trackingPolicy(config),
    },
    starts,
  );
}
