import { defineSignal } from '@temporalio/workflow';

/**
 * The contract of `checkout:{sessionId}` shared by the workflow and the API. No I/O: both sides
 * import it, so the signal is named once.
 */

/** Sent when the payment outcome has been applied (paid or failed): the hold timer ends. */
export const paymentSettledSignal = defineSignal('paymentSettled');
