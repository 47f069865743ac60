import type { DataSource } from 'typeorm';
import { expireRunOutCheckouts } from '../src/services/checkout/checkouts';

/**
 * Sessions expired per sweep at most. The Schedule's next run takes the rest, so a backlog after
 * an outage drains at this many per sweep interval without one activity running for long.
 */
export const EXPIRY_SWEEP_LIMIT = 1000;

export interface CheckoutActivityDeps {
  db: DataSource;
}

export interface CheckoutActivities {
  /** Expires the unpaid sessions whose hold has run out and releases their holds; how many. */
  expireRunOutCheckouts(): Promise<number>;
}

export function createCheckoutActivities({ db }: CheckoutActivityDeps): CheckoutActivities {
  return { expireRunOutCheckouts: () => expireRunOutCheckouts(db, EXPIRY_SWEEP_LIMIT) };
}
