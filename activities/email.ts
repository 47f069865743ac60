import type { EmailChangeCodes } from '../src/services/email/email-change-codes';
import type { EmailDelivery } from '../src/services/email/outbox';

export interface EmailActivityDeps {
  emailChangeCodes: EmailChangeCodes;
  emailDelivery: EmailDelivery;
}

export interface EmailActivities {
  issueEmailChangeCode(requestId: string): Promise<string | null>;
  deliverEmail(messageId: string): Promise<void>;
}

export function createEmailActivities({ emailChangeCodes, emailDelivery }: EmailActivityDeps): EmailActivities {
  return {
    issueEmailChangeCode: (requestId) => emailChangeCodes.issue(requestId),
    deliverEmail: (messageId) => emailDelivery.deliver(messageId),
  };
}
