import type { EntityManager } from 'typeorm';
import { EmailMessage } from '../../db/entities';
import { newId } from '../../ids';

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  kind: string;
}

/**
 * Writes a message to the e-mail outbox inside the caller's transaction, so the message exists
 * exactly when the change that caused it commits. Delivery is a separate, retryable step.
 */
export async function enqueueEmail(tx: EntityManager, email: OutgoingEmail): Promise<string> {
  const id = newId();
  await tx.getRepository(EmailMessage).insert({ id, ...email });
  return id;
}
