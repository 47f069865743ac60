import { log } from '@temporalio/activity';
import { DomainError } from '../src/services/errors';
import type { ShipmentTracking, TrackingPoll } from '../src/services/orders/shipment-tracking';

export interface TrackingActivityDeps {
  shipmentTracking: ShipmentTracking;
}

export interface TrackingActivities {
  /** Asks the carrier about the shipment's current number and records a change. */
  pollShipmentTracking(shipmentId: string): Promise<TrackingPoll>;
}

/** The activity's log; called outside an activity (a test calling the function), there is none. */
function warn(message: string, meta: Record<string, unknown>): void {
  try {
    log.warn(message, meta);
  } catch {
    // No activity context.
  }
}

export function createTrackingActivities(deps: TrackingActivityDeps): TrackingActivities {
  return {
    pollShipmentTracking: async (shipmentId) => {
      try {
        return await deps.shipmentTracking.poll(shipmentId);
      } catch (err) {
        // A carrier outage is the next poll's business, not a failure: retried as an activity
        // error, a long outage would exhaust the retries and end the shipment's tracking.
        if (!(err instanceof DomainError && err.kind === 'unavailable')) throw err;
        warn('carrier unavailable; polling again later', { shipmentId, cause: String(err.cause) });
        return 'CARRIER_UNAVAILABLE';
      }
    },
  };
}
