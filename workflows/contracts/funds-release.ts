import { defineSignal } from '@temporalio/workflow';

/**
 * The contract of `funds-release:{orderId}` with the services that signal it. No I/O.
 */

/** What the release activity did: moved the share, found nothing pending, or found a case open on the order. */
export type FundsRelease = 'released' | 'nothing-pending' | 'held-by-case';

/** A case on the order closed: a release held back by it checks again. */
export const orderCaseClosedSignal = defineSignal('orderCaseClosed');
