import { condition, setHandler } from '@temporalio/workflow';
import type { ConversationActivities } from '../activities/conversations';
import type { EmailActivities } from '../activities/email';
import { BOUNDED_RETRY, boundedActivities } from './bounded-activities';
import { newMessageSignal, type ConversationNotifyInput } from './contracts/conversation-notify';

const { queueUnreadNotification, deliverEmail } = boundedActivities<ConversationActivities & EmailActivities>({
  startToCloseTimeout: '30 seconds',
  retry: BOUNDED_RETRY,
});

/**
 * `conversation-notify:{conversationId}:{userId}`: started or signalled (signal-with-start) for
 * every message to the user. It waits until the conversation has been quiet for the grace
 * period, then queues one e-mail only if the messages are still unread and the user still
 * inactive, and delivers it. Messages arriving meanwhile start another round; messages after
 * it ends start a new run.
 */
export async function conversationNotifyWorkflow(input: ConversationNotifyInput): Promise<{ emails: string[] }> {
  let received = 0;
  setHandler(newMessageSignal, () => {
    received += 1;
  });
  const emails: string[] = [];
  for (;;) {
    const deadline = Date.now() + input.maxDelayMs;
    for (;;) {
      const seen = received;
      const wait = Math.min(input.graceMs, deadline - Date.now());
      if (wait <= 0 || !(await condition(() => received !== seen, wait, { summary: 'grace before the e-mail: more messages join it' })))
        break;
    }
    const handled = received;
    const emailId = await queueUnreadNotification({
      conversationId: input.conversationId,
      userId: input.userId,
      inactiveSeconds: input.inactiveSeconds,
    });
    if (emailId) {
      await deliverEmail(emailId);
      if (!emails.includes(emailId)) emails.push(emailId);
    }
    if (received === handled) return { emails };
  }
}
