/**
 * The carrier port: what shipment tracking needs from a parcel carrier. One call, the current
 * status of a tracking number, so a real carrier's tracking API fits behind it as well as the
 * embedded simulator.
 */

/** The tracking statuses a shipment goes through, in order. */
export const TRACKING_STATUSES = ['PRE_TRANSIT', 'IN_TRANSIT', 'OUT_FOR_DELIVERY', 'DELIVERED'] as const;
export type TrackingStatus = (typeof TRACKING_STATUSES)[number];

export interface TrackingReport {
  status: TrackingStatus;
  /** The carrier's own words for the latest scan, shown to buyer and seller. */
  detail: string;
}

export interface Carrier {
  readonly name: string;
  /** What a shipment says while the carrier does not know its number: shown to buyer and seller. */
  readonly unknownNumberDetail: string;
  /** The tracking number's latest status, or null when the carrier does not know the number. */
  track(trackingNumber: string): Promise<TrackingReport | null>;
}
