import { proxyActivities } from '@temporalio/workflow';
import type { EmailActivities } from '../activities/email';
import type { WorkflowInputs } from './contracts/inputs';

const { deliverEmail } = proxyActivities<EmailActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** `email:{messageId}`: hands one message already in the e-mail outbox to the transport, retried. */
export async function emailDeliveryWorkflow(input: WorkflowInputs['emailDeliveryWorkflow']): Promise<void> {
  await deliverEmail(input.messageId);
}
