import { DataSource, IsNull } from 'typeorm';
import { EmailChangeRequest, User } from '../db/entities';
import { newId } from '../ids';
import { conflict, invalid } from './errors';
import { requestWorkflowStart, type WorkflowStart } from './workflow-starts';
import { uniqueViolation } from './db-errors';
import { constantTimeEqualHex, hmacCode } from './auth/secrets';

export interface EmailChangeOptions {
  codeTtlSeconds: number;
  maxAttempts: number;
  /** Key for the HMAC under which codes are stored (shared with the worker). */
  codeKey: Uint8Array;
}

/** Scope string of the code HMAC, so a code for one purpose never verifies for another. */
export const EMAIL_CHANGE_CODE_SCOPE = 'email-change';

const invalidCode = () => invalid('invalid-verification-code', 'The verification code is wrong; check it and try again.');
const nothingPending = () =>
  conflict(
    'no-pending-email-change',
    'No change to that address is waiting for a code (never requested, replaced, used, expired or retired); request a new code.',
  );

/** The start of `email-change:{requestId}`, the workflow that sends the code (src/modules/account.ts). */
export type EmailChangeStart = (requestId: string) => WorkflowStart;

/**
 * Two-step change of a user's e-mail: `request` records the wish and, in the same transaction,
 * requests the workflow that sends a code to the new address; `confirm` with that code makes the change. Only the newest request
 * counts, a code works once, and a limited number of wrong guesses burns the request.
 */
export class EmailChange {
  constructor(
    private readonly db: DataSource,
    private readonly codeSending: EmailChangeStart,
    private readonly options: EmailChangeOptions,
  ) {}

  async request(userId: string, newEmail: string): Promise<void> {
    const taken = await this.db
      .getRepository(User)
      .createQueryBuilder('u')
      .where('lower(u.email) = lower(:email)', { email: newEmail })
      .getOne();
    if (taken?.id === userId) throw conflict('email-unchanged', 'That is already your e-mail address.');
    if (taken) throw conflict('email-taken', 'That e-mail address belongs to another account.');

    const requestId = newId();
    await this.db.transaction(async (tx) => {
      await tx
        .getRepository(EmailChangeRequest)
        .update({ userId, consumedAt: IsNull(), supersededAt: IsNull() }, { supersededAt: new Date() });
      await tx.getRepository(EmailChangeRequest).insert({
        id: requestId,
        userId,
        newEmail,
        attempts: 0,
        expiresAt: new Date(Date.now() + this.options.codeTtlSeconds * 1000),
      });
      await requestWorkflowStart(tx, this.codeSending(requestId));
    });
  }

  async confirm(userId: string, email: string, code: string): Promise<void> {
    const outcome = await this.db
      .transaction(async (tx) => {
        const pending = await tx
          .getRepository(EmailChangeRequest)
          .createQueryBuilder('r')
          .setLock('pessimistic_write')
          .where('r.user_id = :userId AND r.consumed_at IS NULL AND r.superseded_at IS NULL', { userId })
          .orderBy('r.created_at', 'DESC')
          .getOne();
        if (
          !pending ||
          !pending.codeHash ||
          pending.expiresAt.getTime() <= Date.now() ||
          pending.attempts >= this.options.maxAttempts ||
          pending.newEmail.toLowerCase() !== email.toLowerCase()
        ) {
          return 'nothing-pending' as const;
        }
        const presented = hmacCode(this.options.codeKey, EMAIL_CHANGE_CODE_SCOPE, code);
        if (!constantTimeEqualHex(presented, pending.codeHash)) {
          // Committed even though the request fails: wrong guesses must count.
          await tx.getRepository(EmailChangeRequest).increment({ id: pending.id }, 'attempts', 1);
          return 'wrong-code' as const;
        }
        await tx.getRepository(User).update({ id: userId }, { email: pending.newEmail });
        await tx.getRepository(EmailChangeRequest).update({ id: pending.id }, { consumedAt: new Date() });
        return 'changed' as const;
      })
      .catch((err: unknown) => {
        // Someone registered the address after the request was made.
        if (uniqueViolation(err) === 'users_email_key') {
          throw conflict('email-taken', 'That e-mail address now belongs to another account.');
        }
        throw err;
      });
    if (outcome === 'nothing-pending') throw nothingPending();
    if (outcome === 'wrong-code') throw invalidCode();
  }
}
