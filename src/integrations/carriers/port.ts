import type { TrackingSource } from '../../domain/orders/tracking-source';

export type { TrackingSource };

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
  /** The source a report of this carrier is: a real provider, or the simulator. */
  readonly source: Extract<TrackingSource, 'CARRIER' | 'SIMULATOR'>;
  /** Whether the carrier follows numbers like this one at all; one it does not is never asked about. */
  follows(trackingNumber: string): boolean;
  /** What a shipment says while the carrier does not follow or know its number: shown to buyer and seller. */
  readonly unknownNumberDetail: string;
  /**
   * The tracking number's latest status, or null when the carrier does not know the number.
   * Throws a DomainError of kind `unavailable` when the carrier cannot be asked; its message
   * holds none of the provider's words (they go to the error's `cause`).
   */
  track(trackingNumber: string): Promise<TrackingReport | null>;
}
