import type { DataSource, EntityManager } from 'typeorm';
import { enqueueEmail } from '../../integrations/email/outbox';
import { requestWorkflowStarts, type WorkflowStart } from '../workflow-starts';
import { notificationsById, type NotificationView } from './notifications';

export interface DigestRequest {
  userId: string;
  /** The digest round (workflow id, run and round): a retried activity answers the same e-mail. */
  key: string;
}

/**
 * New notifications for `userId` (the first of the batch: `notificationId`), to the
 * `alert-digest:{userId}` workflow that e-mails at most one digest per `intervalMs`
 * (src/modules/alerts.ts).
 */
export type AlertDigestStart = (userId: string, intervalMs: number, notificationId: string) => WorkflowStart;

/**
 * Tells the digest of each user who was just notified and wants alert e-mails, in the caller's
 * transaction (the matcher's): one signal-with-start of `alert-digest:{userId}` per user and
 * batch. A user who turned the e-mails off costs no workflow at all.
 */
export async function requestAlertDigests(
  tx: EntityManager,
  notified: Array<{ id: string; userId: string }>,
  intervalMs: number,
  digestStart: AlertDigestStart,
): Promise<number> {
  const firstOf = new Map<string, string>();
  for (const n of notified) if (!firstOf.has(n.userId)) firstOf.set(n.userId, n.id);
  const wanting: Array<{ id: string }> = await tx.query(`SELECT id FROM users WHERE id = ANY($1::uuid[]) AND alert_emails`, [
    [...firstOf.keys()],
  ]);
  return requestWorkflowStarts(
    tx,
    wanting.map((u) => digestStart(u.id, intervalMs, firstOf.get(u.id)!)),
  );
}

/** Notifications an e-mail lists; the rest are counted. */
const LISTED = 20;

/**
 * Queues the alert digest e-mail of one user when, at this moment, they want alert e-mails
 * (`users.alert_emails`, `PATCH /user/account`) and have unread notifications no digest has told
 * them of yet. It covers everything still unread (the newest 20 listed, the rest counted) and
 * marks them e-mailed. Returns the e-mail's id, or null when there is nothing to send. A retry of
 * the same round returns the e-mail the round queued, which delivery sends only once.
 */
export async function queueAlertDigest(db: DataSource, request: DigestRequest): Promise<string | null> {
  return db.transaction(async (tx) => {
    const [user]: Array<{ email: string; alert_emails: boolean }> = await tx.query(
      `SELECT email, alert_emails FROM users WHERE id = $1 FOR UPDATE`,
      [request.userId],
    );
    const [done]: Array<{ email_id: string | null }> = await tx.query(`SELECT email_id FROM alert_digests WHERE key = $1`, [request.key]);
    if (done) return done.email_id;
    const record = (emailId: string | null) =>
      tx.query(`INSERT INTO alert_digests (key, user_id, email_id) VALUES ($1, $2, $3)`, [request.key, request.userId, emailId]);
    if (!user || !user.alert_emails) return (await record(null), null);
    const unread: Array<{ id: string; emailed: boolean }> = await tx.query(
      `SELECT id, emailed_at IS NOT NULL AS emailed FROM notifications WHERE user_id = $1 AND read_at IS NULL ORDER BY id DESC`,
      [request.userId],
    );
    if (!unread.some((n) => !n.emailed)) return (await record(null), null);
    const listed = await notificationsById(
      tx,
      request.userId,
      unread.slice(0, LISTED).map((n) => n.id),
    );
    const emailId = await enqueueEmail(tx, {
      to: user.email,
      kind: 'alert-digest',
      subject: unread.length === 1 ? listed[0]!.message : `${unread.length} unread alerts: ${listed[0]!.message}`,
      text: digestText(listed, unread.length),
    });
    await tx.query(`UPDATE notifications SET emailed_at = now() WHERE id = ANY($1::uuid[]) AND emailed_at IS NULL`, [
      unread.map((n) => n.id),
    ]);
    await record(emailId);
    return emailId;
  });
}

function digestText(listed: NotificationView[], total: number): string {
  const lines = listed.map((n) => `- ${n.message} (listing ${n.listing.id})`);
  const more = total > listed.length ? [`…and ${total - listed.length} more.`] : [];
  return [
    `You have ${total === 1 ? 'an unread alert' : `${total} unread alerts`}:`,
    '',
    ...lines,
    ...more,
    '',
    'Open your notifications in the marketplace to see the listings. You can turn these e-mails off in your account settings.',
  ].join('\n');
}
