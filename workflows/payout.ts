import { continueAsNew, patched, sleep } from '@temporalio/workflow';
import type { MoneyActivities } from '../activities/money';
import { BOUNDED_RETRY, boundedActivities } from './bounded-activities';
import { startChildren } from './child-starts';

const { createPayout, markPayoutInTransit, settlePayout, payoutRunPage, requestPayoutRun } = boundedActivities<MoneyActivities>({
  startToCloseTimeout: '30 seconds',
  retry: BOUNDED_RETRY,
});

/** One seller's payout of one run date (YYYY-MM-DD); `transitSeconds` from in transit to the bank's answer. */
export interface PayoutInput {
  sellerId: string;
  runDate: string;
  transitSeconds: number;
}

/**
 * `payout:{sellerId}:{runDate}`: the seller's available balance paid out, created → in transit
 * → paid or failed (a failure returns the money to available). Each step posts to the ledger in
 * its activity; each is idempotent, so retries are harmless.
 */
export async function payoutWorkflow(input: PayoutInput): Promise<string> {
  const payoutId = await createPayout(input.sellerId, input.runDate);
  if (!payoutId) return 'NOTHING_AVAILABLE';
  await markPayoutInTransit(payoutId);
  await sleep(input.transitSeconds * 1000, { summary: 'in transit: until the bank answers' });
  return settlePayout(payoutId);
}

/** Pages of sellers one run works through before it continues as new (a bounded history). */
const PAGES_PER_RUN = 20;

/**
 * Started by the payout Schedule with no input; a run that continues as new carries its date,
 * the seller to go on after and how many payouts it has started.
 */
export interface PayoutRunInput {
  runDate?: string;
  after?: string;
  started?: number;
}

/**
 * Started by the `payout-run` Schedule: starts one `payout:{sellerId}:{date}` child per seller
 * with money available, for today's date (UTC) as the workflow sees it, a page of sellers at a
 * time. The children outlive the run; a payout already started for the date is not started again.
 * Answers how many payouts the run started.
 */
export async function payoutRunWorkflow(input: PayoutRunInput = {}): Promise<number> {
  const runDate = input.runDate ?? new Date().toISOString().slice(0, 10);
  // Runs begun before payouts were children requested them all through the start outbox.
  if (!patched('payout-run-children')) return requestPayoutRun(runDate);
  let after = input.after;
  let started = input.started ?? 0;
  for (let page = 0; page < PAGES_PER_RUN; page++) {
    const next = await payoutRunPage(runDate, after ?? null);
    started += await startChildren(next.starts);
    if (next.next === null) return started;
    after = next.next;
  }
  return continueAsNew<typeof payoutRunWorkflow>({ runDate, after, started });
}
