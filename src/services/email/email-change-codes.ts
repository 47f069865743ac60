import type { DataSource } from 'typeorm';
import { EmailChangeRequest } from '../../db/entities';
import { enqueueEmail } from '../../integrations/email/outbox';
import { hmacCode, newNumericCode } from '../auth/secrets';
import { EMAIL_CHANGE_CODE_SCOPE } from '../email-change';

export interface EmailChangeCodeOptions {
  /** Key for the HMAC under which codes are stored (the API verifies with the same key). */
  codeKey: Uint8Array;
  codeTtlSeconds: number;
}

/** Issues the verification code of an e-mail change request (the worker's half of EmailChange). */
export class EmailChangeCodes {
  constructor(
    private readonly db: DataSource,
    private readonly options: EmailChangeCodeOptions,
  ) {}

  /**
   * Generates the code, stores its HMAC and queues the message, all in one transaction.
   * Idempotent: a retry after a commit returns the message already queued. Returns null when
   * the request was superseded or used in the meantime (nothing to send).
   */
  issue(requestId: string): Promise<string | null> {
    return this.db.transaction(async (tx) => {
      const request = await tx.getRepository(EmailChangeRequest).findOne({ where: { id: requestId }, lock: { mode: 'pessimistic_write' } });
      if (!request || request.consumedAt || request.supersededAt) return null;
      if (request.messageId) return request.messageId;

      const code = newNumericCode();
      const messageId = await enqueueEmail(tx, {
        to: request.newEmail,
        kind: 'email-change',
        ...emailChangeCodeEmail(code, Math.round(this.options.codeTtlSeconds / 60)),
      });
      await tx.getRepository(EmailChangeRequest).update(
        { id: requestId },
        {
          codeHash: hmacCode(this.options.codeKey, EMAIL_CHANGE_CODE_SCOPE, code),
          messageId,
          // The code's lifetime runs from when it is sent, not from when it was asked for.
          expiresAt: new Date(Date.now() + this.options.codeTtlSeconds * 1000),
        },
      );
      return messageId;
    });
  }
}

/** The message carrying a verification code to the new address. */
export function emailChangeCodeEmail(code: string, minutes: number): { subject: string; text: string } {
  return {
    subject: 'Confirm your new e-mail address',
    text:
      `Your verification code is ${code}.\n\n` +
      `Enter it to confirm this address for your marketplace account. It expires in ${minutes} minutes.\n` +
      `If you did not ask for this, ignore this message.`,
  };
}
