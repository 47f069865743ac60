import { condition, setHandler } from '@temporalio/workflow';
import type { TrackingActivities } from '../activities/tracking';
import { trackingNumberChangedSignal, type TrackingPolicy } from './contracts/shipment-tracking';
import { BOUNDED_RETRY, boundedActivities } from './bounded-activities';

const { pollShipmentTracking } = boundedActivities<TrackingActivities>({
  startToCloseTimeout: '1 minute',
  retry: BOUNDED_RETRY,
});

export type TrackingOutcome = 'DELIVERED' | 'SHIPMENT_GONE' | 'GAVE_UP';

export interface ShipmentTrackingInput {
  shipmentId: string;
  policy: TrackingPolicy;
}

/**
 * `shipment-tracking:{shipmentId}`: started with the shipment. Polls the carrier through an
 * activity (which records each change and emits ORDER_UPDATED), waiting on a durable timer
 * between polls that doubles while nothing changes, from `pollSeconds` up to `pollMaxSeconds`.
 * Ends at DELIVERED, when the shipment is gone, or after `giveUpSeconds` without a delivery.
 * A corrected tracking number (signal) polls the new number at once and starts the backoff and
 * the give-up clock over.
 */
export async function shipmentTrackingWorkflow(input: ShipmentTrackingInput): Promise<TrackingOutcome> {
  const { pollSeconds, pollMaxSeconds, giveUpSeconds } = input.policy;
  let changed = false;
  setHandler(trackingNumberChangedSignal, () => {
    changed = true;
  });
  let waitMs = pollSeconds * 1000;
  let giveUpAt = Date.now() + giveUpSeconds * 1000;
  for (;;) {
    changed = false;
    const status = await pollShipmentTracking(input.shipmentId);
    if (changed) {
      // The poll may have read the old number: poll the corrected one straight away.
      waitMs = pollSeconds * 1000;
      giveUpAt = Date.now() + giveUpSeconds * 1000;
      continue;
    }
    if (status === 'DELIVERED') return 'DELIVERED';
    if (status === 'SHIPMENT_GONE') return 'SHIPMENT_GONE';
    const left = giveUpAt - Date.now();
    if (left <= 0) return 'GAVE_UP';
    if (await condition(() => changed, Math.min(waitMs, left), { summary: 'until the next poll of the carrier' })) {
      waitMs = pollSeconds * 1000;
      giveUpAt = Date.now() + giveUpSeconds * 1000;
    } else {
      waitMs = Math.min(waitMs * 2, pollMaxSeconds * 1000);
    }
  }
}
