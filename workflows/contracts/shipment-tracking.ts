import { defineSignal } from '@temporalio/workflow';

/**
 * The contracts of `shipment-tracking:{shipmentId}` and of the delivery's effect on
 * `order-receipt:{orderId}`, shared by the workflows and the services that signal them. No I/O.
 */

/** The seller corrected the shipment's tracking number: poll the new one now, backoff reset. */
export const trackingNumberChangedSignal = defineSignal('trackingNumberChanged');

/** Every shipment of the order is delivered: receipt comes `receiptSeconds` from now, if sooner. */
export const orderDeliveredSignal = defineSignal<[{ receiptSeconds: number }]>('orderDelivered');

/** How a shipment's carrier is polled (config `tracking`), frozen into the workflow's input. */
export interface TrackingPolicy {
  /** First wait between polls; each poll without a change doubles it, up to `pollMaxSeconds`. */
  pollSeconds: number;
  pollMaxSeconds: number;
  /** Polling stops this long after the last (re)start without a delivery. */
  giveUpSeconds: number;
}
