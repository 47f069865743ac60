import { TRACKING_STATUSES, type Carrier, type TrackingReport } from './port';

export interface SimulatorOptions {
  /** How long a parcel stays in each status before the next one. */
  stepSeconds: number;
  now?: () => number;
}

const DETAILS: Record<TrackingReport['status'], string> = {
  PRE_TRANSIT: 'Label created; the carrier awaits the parcel.',
  IN_TRANSIT: 'Parcel accepted at the sorting centre and on its way.',
  OUT_FOR_DELIVERY: 'Out for delivery with the local courier.',
  DELIVERED: 'Delivered to the recipient.',
};

/**
 * The embedded carrier, for development and tests: it knows every tracking number that starts
 * with `SIM` (any other is unknown, as a real carrier answers a mistyped number). A number's
 * clock starts the first time it is tracked, and the parcel then moves one status every
 * `stepSeconds` until DELIVERED. The clock is kept in memory: a restarted worker starts known
 * numbers over, which a simulator may.
 */
export class SimulatorCarrier implements Carrier {
  readonly name = 'simulator';
  readonly source = 'SIMULATOR';
  // No real carrier is connected: say so, rather than let a real number wait silently for ever.
  readonly unknownNumberDetail =
    'Not tracked: no carrier is connected for this number. The embedded simulator carrier follows only tracking numbers starting with SIM.';
  private readonly firstSeen = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly options: SimulatorOptions) {
    this.now = options.now ?? Date.now;
  }

  static knows(trackingNumber: string): boolean {
    return /^SIM/i.test(trackingNumber);
  }

  follows(trackingNumber: string): boolean {
    return SimulatorCarrier.knows(trackingNumber);
  }

  track(trackingNumber: string): Promise<TrackingReport | null> {
    if (!SimulatorCarrier.knows(trackingNumber)) return Promise.resolve(null);
    const key = trackingNumber.toUpperCase();
    const now = this.now();
    const since = this.firstSeen.get(key) ?? now;
    this.firstSeen.set(key, since);
    const step = Math.floor((now - since) / (this.options.stepSeconds * 1000));
    const status = TRACKING_STATUSES[Math.min(step, TRACKING_STATUSES.length - 1)]!;
    return Promise.resolve({ status, detail: DETAILS[status] });
  }
}
