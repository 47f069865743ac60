import type { DataSource } from 'typeorm';
import { expireCheckoutSession } from '../src/services/checkout/checkouts';

export interface CheckoutActivityDeps {
  db: DataSource;
}

export interface CheckoutActivities {
  /** Expires the session and releases its holds when still unpaid; true when it did. */
  expireCheckout(sessionId: string): Promise<boolean>;
}

export function createCheckoutActivities({ db }: CheckoutActivityDeps): CheckoutActivities {
  return { expireCheckout: (sessionId) => expireCheckoutSession(db, sessionId) };
}
