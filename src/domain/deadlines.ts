/**
 * The configured periods deadlines are counted with (ORDER_AUTO_RECEIPT_SECONDS, ORDER_DELIVERED_RECEIPT_SECONDS,
 * CASE_AUTO_ESCALATE_SECONDS, REVIEW_WINDOW_SECONDS): the same settings the timers run on; and the
 * periods only shown as due (ORDER_DISPATCH_SECONDS, ORDER_CANCELLATION_ANSWER_SECONDS, CASE_DECISION_SECONDS).
 */
export interface Periods {
  autoReceiptSeconds: number;
  /** ORDER_DELIVERED_RECEIPT_SECONDS: a delivery brings the auto-receipt forward to this. */
  deliveredReceiptSeconds: number;
  autoEscalateSeconds: number;
  reviewWindowSeconds: number;
  dispatchSeconds: number;
  cancellationAnswerSeconds: number;
  decisionSeconds: number;
}

/** `seconds` after `start`, or null when the clock has not started (or does not run). */
export const deadline = (start: Date | null, seconds: number): Date | null => (start ? new Date(start.getTime() + seconds * 1000) : null);

/** The earlier of two deadlines, either of which may not run. */
export const earliest = (a: Date | null, b: Date | null): Date | null => (a && b ? (a < b ? a : b) : (a ?? b));

/**
 * One move somebody has to make next on an order or a case, and by when (docs/checkout-orders.md
 * "Next actions"): `party` names who (an operator for an escalated case), `action` the API action
 * that makes the move, `dueAt` the deadline (null when none runs), and `afterDue` what the service
 * does by itself once it passes (null: nothing; the deadline is a commitment both sides see).
 */
export interface NextAction {
  party: 'BUYER' | 'SELLER' | 'OPERATOR';
  action: string;
  dueAt: Date | null;
  afterDue: string | null;
}
