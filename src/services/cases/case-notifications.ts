import type { EntityManager } from 'typeorm';
import { enqueueEmail } from '../../integrations/email/outbox';
import type { CaseStatus, Party } from '../../domain/cases/machine';

const WHAT = {
  propose: 'proposed an outcome',
  accept: 'accepted an outcome',
  reject: 'rejected an outcome',
  escalate: 'escalated the case to the marketplace team',
  resolve: 'confirmed the returned items arrived',
  'auto-escalate': 'was escalated to the marketplace team after 7 days without resolution',
  'operator-close': 'was closed by the marketplace team',
  'operator-remediate': 'was sent back to you and the other party by the marketplace team',
  'order-cancelled': 'was closed because the order was cancelled and refunded in full',
} as const;

/**
 * What a notification tells of a change. A `CaseChange` is one (case-changes.ts passes it), so
 * a change kind without a sentence here fails to compile there; declared here rather than
 * imported so the two modules do not import each other.
 */
export interface CaseNotice {
  caseId: string;
  actor: Party | 'SYSTEM' | 'OPERATOR';
  kind: keyof typeof WHAT;
  status: CaseStatus;
}

/**
 * Case update notifications, queued in the e-mail outbox inside the change's transaction: a
 * party's action is told to the other party; system and operator changes to both. Returns the
 * queued message ids.
 */
export async function queueCaseNotifications(tx: EntityManager, c: CaseNotice): Promise<string[]> {
  const [parties]: Array<{ buyer_email: string; seller_email: string }> = await tx.query(
    `SELECT b.email AS buyer_email, s.email AS seller_email
       FROM cases c JOIN users b ON b.id = c.buyer_id JOIN users s ON s.id = c.seller_id WHERE c.id = $1`,
    [c.caseId],
  );
  const recipients =
    c.actor === 'BUYER'
      ? [parties!.seller_email]
      : c.actor === 'SELLER'
        ? [parties!.buyer_email]
        : [parties!.buyer_email, parties!.seller_email];
  const who = c.actor === 'BUYER' ? 'The buyer' : c.actor === 'SELLER' ? 'The seller' : 'The case';
  const ids: string[] = [];
  for (const to of recipients) {
    ids.push(
      await enqueueEmail(tx, {
        to,
        kind: 'case-update',
        subject: `Case ${c.caseId}: ${c.status.toLowerCase()}`,
        text: `${who} ${WHAT[c.kind]}. The case is now ${c.status}.\n\nSee your cases in the marketplace for details.`,
      }),
    );
  }
  return ids;
}
