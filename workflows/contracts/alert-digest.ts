import { defineSignal } from '@temporalio/workflow';

/**
 * The contract of `alert-digest:{userId}` shared by the workflow and the API side. No I/O: both
 * sides import it, so the signal and the input are defined once.
 */

/** New notifications for the workflow's user (the alerts matcher, through the start outbox). */
export const alertsNotifiedSignal = defineSignal<[]>('alertsNotified');

export interface AlertDigestInput {
  userId: string;
  /** At most one e-mail per this long (15 minutes by default, `ALERT_DIGEST_INTERVAL_SECONDS`). */
  intervalMs: number;
  /** Signals a previous run had received but not yet e-mailed about (continue-as-new). */
  pending?: number;
}
