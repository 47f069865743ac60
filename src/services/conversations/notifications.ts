import type { DataSource } from 'typeorm';
import { enqueueEmail } from '../../integrations/email/outbox';

export interface NotificationCheck {
  conversationId: string;
  userId: string;
  /** The recipient counts as inactive after this long without an authenticated request. */
  inactiveSeconds: number;
}

/**
 * Queues the "you have unread messages" e-mail when, at this moment, the recipient still has
 * unread messages no e-mail has told them about yet and has been inactive for `inactiveSeconds`
 * (no authenticated request: `users.last_active_at`, docs/conversations.md). Returns the id of the
 * e-mail to deliver, or null when there is nothing to send. A retry after a commit returns the
 * same e-mail (delivery skips it once delivered) rather than writing a second one.
 */
export async function queueUnreadNotification(db: DataSource, check: NotificationCheck): Promise<string | null> {
  return db.transaction(async (tx) => {
    const [row]: Array<{
      unread_count: number;
      told: boolean;
      notified_email_id: string | null;
      email: string;
      inactive: boolean;
      sender: string;
      source_type: string;
      newest_unread: string | null;
    }> = await tx.query(
      `WITH unread AS (
         SELECT max(m.created_at) AS newest FROM messages m
          WHERE m.conversation_id = $1 AND m.sender_id <> $2 AND m.viewed_at IS NULL
       )
       SELECT p.unread_count, p.notified_email_id, u.email,
              -- Kept as text: a JS Date would drop the microseconds the comparison needs.
              unread.newest::text AS newest_unread,
              (p.notified_through IS NOT NULL AND unread.newest <= p.notified_through) AS told,
              (u.last_active_at IS NULL OR u.last_active_at < now() - make_interval(secs => $3)) AS inactive,
              o.username AS sender, c.source_type
         FROM unread, conversation_participants p
         JOIN conversations c ON c.id = p.conversation_id
         JOIN users u ON u.id = p.user_id
         JOIN users o ON o.id = p.other_user_id
        WHERE p.conversation_id = $1 AND p.user_id = $2
        FOR UPDATE OF p`,
      [check.conversationId, check.userId, check.inactiveSeconds],
    );
    if (!row || row.unread_count === 0 || !row.newest_unread) return null;
    if (row.told) return row.notified_email_id;
    if (!row.inactive) return null;
    const about = row.source_type === 'ORDER' ? 'an order' : 'a listing';
    const count = row.unread_count === 1 ? 'a new message' : `${row.unread_count} unread messages`;
    const emailId = await enqueueEmail(tx, {
      to: row.email,
      kind: 'conversation-unread',
      subject: `${row.sender} sent you ${count}`,
      text: `${row.sender} sent you ${count} about ${about}.\n\nOpen your inbox in the marketplace to read and reply.`,
    });
    await tx.query(
      `UPDATE conversation_participants SET notified_through = $3::timestamptz, notified_email_id = $4 WHERE conversation_id = $1 AND user_id = $2`,
      [check.conversationId, check.userId, row.newest_unread, emailId],
    );
    return emailId;
  });
}
