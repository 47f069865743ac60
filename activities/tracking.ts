import type { ShipmentTracking, TrackingPoll } from '../src/services/orders/shipment-tracking';

export interface TrackingActivityDeps {
  shipmentTracking: ShipmentTracking;
}

export interface TrackingActivities {
  /** Asks the carrier about the shipment's current number and records a change. */
  pollShipmentTracking(shipmentId: string): Promise<TrackingPoll>;
}

export function createTrackingActivities(deps: TrackingActivityDeps): TrackingActivities {
  return {
    pollShipmentTracking: (shipmentId) => deps.shipmentTracking.poll(shipmentId),
  };
}
