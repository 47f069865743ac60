/**
 * Where a shipment's tracking status comes from (a shipment's `trackingSource`, docs/sellers-operators.md):
 * - PENDING: the carrier has not been asked yet (moments after shipping or a correction);
 * - CARRIER: a connected tracking provider follows the number; the status is its;
 * - SIMULATOR: the embedded simulator moves the parcel (development and tests);
 * - NOT_FOUND: the connected provider has no record of the number (yet, or it is mistyped);
 * - NOT_CONNECTED: no connected carrier follows numbers like this one: the status will not
 *   change by itself, and the order is received when the buyer says so or automatically.
 */
export const TRACKING_SOURCES = ['PENDING', 'CARRIER', 'SIMULATOR', 'NOT_FOUND', 'NOT_CONNECTED'] as const;
export type TrackingSource = (typeof TRACKING_SOURCES)[number];
