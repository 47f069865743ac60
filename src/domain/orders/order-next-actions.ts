/**
 * Whose move an order waits for, and by when (docs/checkout-orders.md "Next actions"): the rules
 * behind an order view's `nextActions`. Pure: the view passes the order's clock readings.
 */
import { deadline, type NextAction, type Periods } from '../deadlines';
import type { CancellationRequestStatus, OrderStatus } from './order-machine';

export interface OrderClock {
  status: OrderStatus;
  createdAt: Date;
  /** When a SHIPPED order is received automatically (the receipt timer's rule). */
  autoReceiptAt: Date | null;
  cancellationRequest: { status: CancellationRequestStatus; requestedAt: Date } | null;
}

export function orderNextActions(o: OrderClock, periods: Pick<Periods, 'dispatchSeconds' | 'cancellationAnswerSeconds'>): NextAction[] {
  switch (o.status) {
    case 'ACCEPTED': {
      const moves: NextAction[] = [];
      if (o.cancellationRequest?.status === 'PENDING') {
        // The buyer asked to cancel: the seller cancels (refunding in full) or declines.
        const dueAt = deadline(o.cancellationRequest.requestedAt, periods.cancellationAnswerSeconds);
        moves.push(
          { party: 'SELLER', action: 'cancel', dueAt, afterDue: null },
          { party: 'SELLER', action: 'decline-cancel', dueAt, afterDue: null },
        );
      }
      moves.push({ party: 'SELLER', action: 'ship', dueAt: deadline(o.createdAt, periods.dispatchSeconds), afterDue: null });
      return moves;
    }
    case 'SHIPPED':
      return [{ party: 'BUYER', action: 'receive', dueAt: o.autoReceiptAt, afterDue: 'The order is received automatically.' }];
    case 'RECEIVED':
    case 'CANCELLED':
    case 'REFUNDED':
      return [];
  }
}
