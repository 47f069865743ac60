import { condition, setHandler, sleep } from '@temporalio/workflow';
import type { MoneyActivities } from '../activities/money';
import { orderCaseClosedSignal } from './contracts/funds-release';
import { BOUNDED_RETRY, boundedActivities } from './bounded-activities';

const { releaseOrderFunds } = boundedActivities<MoneyActivities>({
  startToCloseTimeout: '30 seconds',
  retry: BOUNDED_RETRY,
});

/**
 * A safety net under the case-closed signal: a release held by an open case also checks again
 * this long after its last check (a durable timer, one per day at most, never a tight loop).
 */
const HELD_RECHECK = '1 day';

/** Started at an order's receipt: its seller share becomes available `afterSeconds` later. */
export interface FundsReleaseInput {
  orderId: string;
  afterSeconds: number;
  /**
   * ISO 8601: the transfer's `availableOn`, the date the seller is shown; the hold ends then (at
   * most `afterSeconds` after the start). Starts requested before it existed carry `afterSeconds` alone.
   */
  releaseAt?: string;
}

/**
 * `funds-release:{orderId}`: started when an order is received. After the hold period, the
 * seller's share of the order moves from pending to available (the activity does nothing when
 * it was released already). While a case on the order is open the release is held back: the
 * workflow waits until a case on the order closes (`orderCaseClosed`, signalled through the
 * start outbox by the case change) and tries again, so what is released is what is left after
 * any refund the case made.
 */
export async function fundsReleaseWorkflow(input: FundsReleaseInput): Promise<boolean> {
  let casesClosed = 0;
  setHandler(orderCaseClosedSignal, () => {
    casesClosed += 1;
  });
  // The hold ends on the date the seller is shown (`releaseAt`), so a release whose start waited
  // out a Temporal outage still releases on time rather than a whole hold after its late start.
  // Date.now() is workflow time here: deterministic, and skipped by the test server.
  const holdMs = input.releaseAt
    ? Math.min(input.afterSeconds * 1000, Date.parse(input.releaseAt) - Date.now())
    : input.afterSeconds * 1000;
  if (holdMs > 0) await sleep(holdMs, { summary: `hold until ${input.releaseAt ?? `${input.afterSeconds} s after the start`}` });
  for (;;) {
    // Counted before the check: a case closing while the activity runs is not missed.
    const seen = casesClosed;
    const result = await releaseOrderFunds(input.orderId);
    if (result !== 'held-by-case') return result === 'released';
    await condition(() => casesClosed > seen, HELD_RECHECK, { summary: 'held by an open case: until it closes, or a daily check' });
  }
}
