import type { EmailActivities } from '../activities/email';
import { BOUNDED_RETRY, boundedActivities } from './bounded-activities';

const { deliverEmail } = boundedActivities<EmailActivities>({
  startToCloseTimeout: '30 seconds',
  retry: BOUNDED_RETRY,
});

export interface EmailDeliveryInput {
  messageId: string;
}

/** `email:{messageId}`: hands one message already in the e-mail outbox to the transport, retried. */
export async function emailDeliveryWorkflow(input: EmailDeliveryInput): Promise<void> {
  await deliverEmail(input.messageId);
}
