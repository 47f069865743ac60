import { DataSource, IsNull } from 'typeorm';
import { EmailChangeRequest, EmailMessage } from '../src/db/entities';
import { enqueueEmail } from '../src/integrations/email/outbox';
import type { MailTransport } from '../src/integrations/email/transport';
import { hmacCode, newNumericCode } from '../src/services/auth/secrets';
import { EMAIL_CHANGE_CODE_SCOPE } from '../src/services/email-change';

export interface EmailActivityDeps {
  db: DataSource;
  transport: MailTransport;
  from: string;
  codeKey: Uint8Array;
  codeTtlSeconds: number;
}

export interface EmailActivities {
  issueEmailChangeCode(requestId: string): Promise<string | null>;
  deliverEmail(messageId: string): Promise<void>;
}

export function createEmailActivities(deps: EmailActivityDeps): EmailActivities {
  return {
    /**
     * Generates the code, stores its HMAC and queues the message, all in one transaction.
     * Idempotent: a retry after a commit returns the message already queued. Returns null when
     * the request was superseded or used in the meantime (nothing to send).
     */
    async issueEmailChangeCode(requestId) {
      return deps.db.transaction(async (tx) => {
        const request = await tx
          .getRepository(EmailChangeRequest)
          .findOne({ where: { id: requestId }, lock: { mode: 'pessimistic_write' } });
        if (!request || request.consumedAt || request.supersededAt) return null;
        if (request.messageId) return request.messageId;

        const code = newNumericCode();
        const minutes = Math.round(deps.codeTtlSeconds / 60);
        const messageId = await enqueueEmail(tx, {
          to: request.newEmail,
          kind: 'email-change',
          subject: 'Confirm your new e-mail address',
          text:
            `Your verification code is ${code}.\n\n` +
            `Enter it to confirm this address for your marketplace account. It expires in ${minutes} minutes.\n` +
            `If you did not ask for this, ignore this message.`,
        });
        await tx.getRepository(EmailChangeRequest).update(
          { id: requestId },
          {
            codeHash: hmacCode(deps.codeKey, EMAIL_CHANGE_CODE_SCOPE, code),
            messageId,
            // The code's lifetime runs from when it is sent, not from when it was asked for.
            expiresAt: new Date(Date.now() + deps.codeTtlSeconds * 1000),
          },
        );
        return messageId;
      });
    },

    /** Hands an outbox message to the transport once; a delivered message is not sent again. */
    async deliverEmail(messageId) {
      const message = await deps.db.getRepository(EmailMessage).findOneBy({ id: messageId, deliveredAt: IsNull() });
      if (!message) return;
      await deps.transport.send({ from: deps.from, to: message.to, subject: message.subject, text: message.text, messageId });
      await deps.db.getRepository(EmailMessage).update({ id: messageId }, { deliveredAt: new Date() });
    },
  };
}
