import { proxyActivities } from '@temporalio/workflow';
import type { EmailActivities } from '../activities/email';
import type { WorkflowInputs } from './contracts/inputs';

const { issueEmailChangeCode, deliverEmail } = proxyActivities<EmailActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Sends the verification code of an e-mail change request. Two steps, each retried on its own:
 * issuing the code writes it (hashed) and the message (to the outbox) in one transaction;
 * delivery hands the message to the configured transport.
 */
export async function emailChangeWorkflow(input: WorkflowInputs['emailChangeWorkflow']): Promise<{ messageId: string | null }> {
  const messageId = await issueEmailChangeCode(input.requestId);
  if (messageId) await deliverEmail(messageId);
  return { messageId };
}
