/**
 * The configured periods deadlines are counted with (ORDER_AUTO_RECEIPT_SECONDS, ORDER_DELIVERED_RECEIPT_SECONDS,
 * CASE_AUTO_ESCALATE_SECONDS, REVIEW_WINDOW_SECONDS): the same settings the timers run on.
 */
export interface Periods {
  autoReceiptSeconds: number;
  /** ORDER_DELIVERED_RECEIPT_SECONDS: a delivery brings the auto-receipt forward to this. */
  deliveredReceiptSeconds: number;
  autoEscalateSeconds: number;
  reviewWindowSeconds: number;
}

/** `seconds` after `start`, or null when the clock has not started (or does not run). */
export const deadline = (start: Date | null, seconds: number): Date | null => (start ? new Date(start.getTime() + seconds * 1000) : null);

/** The earlier of two deadlines, either of which may not run. */
export const earliest = (a: Date | null, b: Date | null): Date | null => (a && b ? (a < b ? a : b) : (a ?? b));
