import { continueAsNew, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { AlertActivities } from '../activities/alerts';
import type { EmailActivities } from '../activities/email';
import { BOUNDED_RETRY, boundedActivities } from './bounded-activities';
import { alertsNotifiedSignal, type AlertDigestInput } from './contracts/alert-digest';

const { queueAlertDigest, deliverEmail } = boundedActivities<AlertActivities & EmailActivities>({
  startToCloseTimeout: '30 seconds',
  retry: BOUNDED_RETRY,
});

/** Rounds before a busy user's digest continues as new, keeping its history short. */
const ROUNDS_PER_RUN = 50;

/**
 * `alert-digest:{userId}`: signalled (signal-with-start) whenever the alerts matcher writes
 * notifications for the user. It queues one e-mail at once covering every notification still
 * unread — none if the user turned alert e-mails off, or read them all meanwhile — then waits
 * `intervalMs`; notifications that arrived meanwhile make the next round, and without any the
 * run ends. So a user gets at most one e-mail per interval, the first without delay, and a
 * signal after the run ended starts a new run (docs/alerts.md, "E-mail digest").
 */
export async function alertDigestWorkflow(input: AlertDigestInput): Promise<{ emails: string[] }> {
  // Started with its signal: the start itself counts as one, whichever the SDK delivers first.
  let signals = input.pending ?? 1;
  setHandler(alertsNotifiedSignal, () => {
    signals += 1;
  });
  const emails: string[] = [];
  for (let round = 0; signals > 0; round++) {
    if (round === ROUNDS_PER_RUN) await continueAsNew<typeof alertDigestWorkflow>({ ...input, pending: signals });
    signals = 0;
    const { workflowId, runId } = workflowInfo();
    const emailId = await queueAlertDigest({ userId: input.userId, key: `${workflowId}:${runId}:${round}` });
    if (emailId) {
      await deliverEmail(emailId);
      emails.push(emailId);
    }
    await sleep(input.intervalMs, { summary: 'digest interval: the next e-mail covers what arrives meanwhile' });
  }
  return { emails };
}
