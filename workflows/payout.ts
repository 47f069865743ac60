import { sleep } from '@temporalio/workflow';
import type { MoneyActivities } from '../activities/money';
import type { WorkflowInputs } from './contracts/inputs';
import { BOUNDED_RETRY, boundedActivities } from './bounded-activities';

const { createPayout, markPayoutInTransit, settlePayout, requestPayoutRun } = boundedActivities<MoneyActivities>({
  startToCloseTimeout: '30 seconds',
  retry: BOUNDED_RETRY,
});

/**
 * `payout:{sellerId}:{runDate}`: the seller's available balance paid out, created → in transit
 * → paid or failed (a failure returns the money to available). Each step posts to the ledger in
 * its activity; each is idempotent, so retries are harmless.
 */
export async function payoutWorkflow(input: WorkflowInputs['payoutWorkflow']): Promise<string> {
  const payoutId = await createPayout(input.sellerId, input.runDate);
  if (!payoutId) return 'NOTHING_AVAILABLE';
  await markPayoutInTransit(payoutId);
  await sleep(input.transitSeconds * 1000, { summary: 'in transit: until the bank answers' });
  return settlePayout(payoutId);
}

/**
 * Started by the `payout-run` Schedule: requests, through the start outbox, one payout workflow
 * per seller with money available, for today's date (UTC) as the workflow sees it.
 */
export async function payoutRunWorkflow(_input: WorkflowInputs['payoutRunWorkflow'] = {}): Promise<number> {
  return requestPayoutRun(new Date().toISOString().slice(0, 10));
}
