import type { EmailActivities } from '../activities/email';
import { BOUNDED_RETRY, boundedActivities } from './bounded-activities';

const { issueEmailChangeCode, deliverEmail } = boundedActivities<EmailActivities>({
  startToCloseTimeout: '30 seconds',
  retry: BOUNDED_RETRY,
});

/**
 * Sends the verification code of an e-mail change request. Two steps, each retried on its own:
 * issuing the code writes it (hashed) and the message (to the outbox) in one transaction;
 * delivery hands the message to the configured transport.
 */
export async function emailChangeWorkflow(input: { requestId: string }): Promise<{ messageId: string | null }> {
  const messageId = await issueEmailChangeCode(input.requestId);
  if (messageId) await deliverEmail(messageId);
  return { messageId };
}
