import type { DataSource, EntityManager } from 'typeorm';
import { newId } from '../../ids';
import { conflict, DomainError, invalid, notFound } from '../errors';
import { pageOf, type Page } from '../paging';
import type { ConversationNotifyInput } from '../../../workflows/contracts/conversation-notify';
import { requestWorkflowStart, type WorkflowStart } from '../workflow-starts';
import {
  conversationViews,
  messageById,
  participantMessagePage,
  type ConversationView,
  type ImageUrl,
  type MessageView,
  type SourceType,
} from './conversation-view';
import { CONVERSATION_LIMITS } from './limits';
import { sanitizeMessageBody } from './message-body';
import { touchInbox, UnreadCounts, type UnreadTotal } from './unread';

export interface NewConversation {
  source: { type: SourceType; id: string };
  recipientId: string;
  body: string;
}

export type InboxPage = Page<ConversationView>;

/** When a recipient's e-mail about unread messages is decided (config `CONVERSATION_*`). */
export interface NotificationTimings {
  graceSeconds: number;
  maxDelaySeconds: number;
  inactiveSeconds: number;
}

interface Locked {
  id: string;
  user_a_id: string;
  user_b_id: string;
  locked_by: string | null;
}

/**
 * A new message for `input.userId`, to the `conversation-notify:{conversationId}:{userId}` workflow
 * that e-mails about unread messages (src/modules/conversations.ts).
 */
export type ConversationNotifyStart = (messageId: string, input: ConversationNotifyInput) => WorkflowStart;

/**
 * Two-person conversations about an order or a listing (docs/conversations.md). Every read and
 * write joins the caller's participant row, so a conversation the caller is not in is "not
 * found", exactly like a missing one. Each write keeps the participants' denormalised inbox
 * state (last activity, unread count) and the unread cache version in its own transaction.
 */
export class Conversations {
  private readonly unread: UnreadCounts;

  constructor(
    private readonly db: DataSource,
    private readonly imageUrl: ImageUrl,
    private readonly notifyStart: ConversationNotifyStart,
    private readonly timings: NotificationTimings,
  ) {
    this.unread = new UnreadCounts(db);
  }

  /**
   * Opens the conversation with its first message, or, when the pair already has one about
   * this source, adds the message to it (`created: false`), so "contact the seller" always works
   * and never forks a second thread.
   */
  async create(callerId: string, input: NewConversation): Promise<{ created: boolean; conversation: ConversationView }> {
    const body = this.cleanBody(input.body);
    const { id, created } = await this.db.transaction(async (tx) => {
      await this.checkSource(tx, callerId, input);
      const conversationId = newId();
      const [inserted]: Array<{ id: string }> = await tx.query(
        `INSERT INTO conversations (id, source_type, source_id, user_a_id, user_b_id) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (source_type, source_id, LEAST(user_a_id, user_b_id), GREATEST(user_a_id, user_b_id)) DO NOTHING
         RETURNING id`,
        [conversationId, input.source.type, input.source.id, callerId, input.recipientId],
      );
      if (inserted) {
        await tx.query(
          `INSERT INTO conversation_participants (conversation_id, user_id, other_user_id, last_activity_at)
           VALUES ($1, $2, $3, now()), ($1, $3, $2, now())`,
          [conversationId, callerId, input.recipientId],
        );
        await this.append(tx, { id: conversationId, user_a_id: callerId, user_b_id: input.recipientId, locked_by: null }, callerId, body);
        return { id: conversationId, created: true };
      }
      const [existing]: Array<{ id: string }> = await tx.query(
        `SELECT id FROM conversations WHERE source_type = $1 AND source_id = $2
            AND LEAST(user_a_id, user_b_id) = LEAST($3::uuid, $4::uuid) AND GREATEST(user_a_id, user_b_id) = GREATEST($3::uuid, $4::uuid)`,
        [input.source.type, input.source.id, callerId, input.recipientId],
      );
      const conversation = await this.lockForWrite(tx, existing!.id, callerId);
      await this.append(tx, conversation, callerId, body);
      return { id: existing!.id, created: false };
    });
    return { created, conversation: await this.get(callerId, id) };
  }

  async get(callerId: string, conversationId: string): Promise<ConversationView> {
    const [view] = await conversationViews(
      this.db,
      `(SELECT * FROM conversation_participants WHERE conversation_id = $1 AND user_id = $2) p`,
      [conversationId, callerId],
      this.imageUrl,
    );
    if (!view) throw notFound('Conversation');
    return view;
  }

  /** The caller's inbox: newest activity first, each with its last message and the caller's unread count. */
  async inbox(callerId: string, page: number, size: number): Promise<InboxPage> {
    const [conversations, [counted]]: [ConversationView[], Array<{ total: number }>] = await Promise.all([
      conversationViews(
        this.db,
        `(SELECT * FROM conversation_participants WHERE user_id = $1 ORDER BY last_activity_at DESC, conversation_id DESC LIMIT $2 OFFSET $3) p`,
        [callerId, size, (page - 1) * size],
        this.imageUrl,
      ),
      this.db.query(`SELECT count(*)::int AS total FROM conversation_participants WHERE user_id = $1`, [callerId]),
    ]);
    return pageOf(conversations, counted!.total, { page, size });
  }

  unreadTotal(callerId: string): Promise<UnreadTotal> {
    return this.unread.total(callerId);
  }

  /**
   * One page of messages, newest first. Reading is what marks the other participant's messages
   * viewed: all of them, since the reader has the conversation open (docs/conversations.md).
   */
  async messages(callerId: string, conversationId: string, page: number, size: number): Promise<MessageView[]> {
    const read = await participantMessagePage(this.db, conversationId, callerId, page, size, this.imageUrl);
    if (!read) throw notFound('Conversation');
    // Only a reader with something unread writes; polling an up-to-date conversation is one pure read.
    if (read.unread === 0) return read.messages;
    await this.markRead(conversationId, callerId);
    return (await participantMessagePage(this.db, conversationId, callerId, page, size, this.imageUrl))!.messages;
  }

  async post(callerId: string, conversationId: string, body: string): Promise<MessageView> {
    const clean = this.cleanBody(body);
    const messageId = await this.db.transaction(async (tx) => {
      const conversation = await this.lockForWrite(tx, conversationId, callerId);
      return this.append(tx, conversation, callerId, clean);
    });
    return messageById(this.db, messageId, this.imageUrl);
  }

  /**
   * Either participant may lock; the lock stops new messages and attachments from both, and
   * only the participant who locked may lift it (so the other cannot undo a block). Locking a
   * locked conversation changes nothing.
   */
  async lock(callerId: string, conversationId: string): Promise<ConversationView> {
    await this.db.transaction(async (tx) => {
      const conversation = await this.lockRow(tx, conversationId, callerId);
      if (conversation.locked_by) return;
      await tx.query(`UPDATE conversations SET locked_by = $2, locked_at = now(), updated_at = now() WHERE id = $1`, [
        conversationId,
        callerId,
      ]);
    });
    return this.get(callerId, conversationId);
  }

  async unlock(callerId: string, conversationId: string): Promise<ConversationView> {
    await this.db.transaction(async (tx) => {
      const conversation = await this.lockRow(tx, conversationId, callerId);
      if (!conversation.locked_by) return;
      if (conversation.locked_by !== callerId)
        throw conflict('locked-by-other-party', 'Only the participant who locked this conversation may unlock it.');
      await tx.query(`UPDATE conversations SET locked_by = NULL, locked_at = NULL, updated_at = now() WHERE id = $1`, [conversationId]);
    });
    return this.get(callerId, conversationId);
  }

  /**
   * The conversation row, locked for this transaction, if the caller takes part; 404 otherwise,
   * 409 when it is locked. Writers queue on the row, so a lock and a message cannot interleave.
   */
  async lockForWrite(tx: EntityManager, conversationId: string, callerId: string): Promise<Locked> {
    const conversation = await this.lockRow(tx, conversationId, callerId);
    if (conversation.locked_by) throw conflict('conversation-locked', 'This conversation is locked; no new messages or attachments.');
    return conversation;
  }

  private async lockRow(tx: EntityManager, conversationId: string, callerId: string): Promise<Locked> {
    const [conversation]: Locked[] = await tx.query(
      `SELECT c.id, c.user_a_id, c.user_b_id, c.locked_by FROM conversations c
        WHERE c.id = $1 AND (c.user_a_id = $2 OR c.user_b_id = $2) FOR UPDATE`,
      [conversationId, callerId],
    );
    if (!conversation) throw notFound('Conversation');
    return conversation;
  }

  private cleanBody(body: string): string {
    const clean = sanitizeMessageBody(body);
    if (!clean) {
      throw invalid('validation-failed', 'The message is empty once markup is removed.', [
        { in: 'body', field: 'body', message: '"body" must contain text' },
      ]);
    }
    return clean;
  }

  /**
   * Who may open a conversation about what: an ORDER between its buyer and its seller; a
   * LISTING question from anyone but its seller, to its seller. Sources the caller has no
   * part in are not found; a recipient who is not the other party is a bad request.
   */
  private async checkSource(tx: EntityManager, callerId: string, input: NewConversation): Promise<void> {
    const recipientError = (message: string) => invalid('invalid-recipient', message, [{ in: 'body', field: 'recipientId', message }]);
    if (input.recipientId === callerId) throw recipientError('"recipientId" must be someone other than the caller');
    if (input.source.type === 'ORDER') {
      const [order]: Array<{ buyer_id: string; seller_id: string }> = await tx.query(
        `SELECT buyer_id, seller_id FROM orders WHERE id = $1 AND (buyer_id = $2 OR seller_id = $2)`,
        [input.source.id, callerId],
      );
      if (!order) throw notFound('Order');
      const other = order.buyer_id === callerId ? order.seller_id : order.buyer_id;
      if (input.recipientId !== other) throw recipientError('"recipientId" must be the other party of the order');
      return;
    }
    const [listing]: Array<{ seller_id: string }> = await tx.query(
      `SELECT seller_id FROM listings WHERE id = $1 AND deleted_at IS NULL AND (NOT hidden OR seller_id = $2)`,
      [input.source.id, callerId],
    );
    if (!listing) throw notFound('Listing');
    if (listing.seller_id === callerId) {
      // The seller answers inside the thread a buyer opened; there is no one to ask about one's own listing.
      throw recipientError('A listing question is asked by a buyer; the seller answers in the conversation the buyer opened');
    }
    if (input.recipientId !== listing.seller_id) throw recipientError('"recipientId" must be the seller of the listing');
  }

  /** Writes one message and the inbox state around it; the caller holds the conversation row. */
  private async append(tx: EntityManager, conversation: Locked, senderId: string, body: string): Promise<string> {
    await this.checkRate(tx, senderId);
    const recipientId = conversation.user_a_id === senderId ? conversation.user_b_id : conversation.user_a_id;
    const messageId = newId();
    await tx.query(`INSERT INTO messages (id, conversation_id, sender_id, body) VALUES ($1, $2, $3, $4)`, [
      messageId,
      conversation.id,
      senderId,
      body,
    ]);
    await tx.query(`UPDATE conversations SET last_message_id = $2, updated_at = now() WHERE id = $1`, [conversation.id, messageId]);
    await tx.query(
      `UPDATE conversation_participants SET last_activity_at = now(), unread_count = unread_count + (user_id = $2)::int
        WHERE conversation_id = $1`,
      [conversation.id, recipientId],
    );
    await touchInbox(tx, recipientId);
    // The recipient's notification hears of the message exactly when the message commits.
    await requestWorkflowStart(
      tx,
      this.notifyStart(messageId, {
        conversationId: conversation.id,
        userId: recipientId,
        graceMs: this.timings.graceSeconds * 1000,
        maxDelayMs: this.timings.maxDelaySeconds * 1000,
        inactiveSeconds: this.timings.inactiveSeconds,
      }),
    );
    return messageId;
  }

  /**
   * At most `messagesPerMinute` per sender over a rolling minute. Counted, not reserved: two
   * concurrent sends at the edge may both pass, which a spam limit can afford.
   */
  private async checkRate(tx: EntityManager, senderId: string): Promise<void> {
    const [row]: Array<{ sent: number; retry_after: number | null }> = await tx.query(
      `SELECT count(*)::int AS sent, ceil(extract(epoch FROM min(created_at) + interval '1 minute' - now()))::int AS retry_after
         FROM messages WHERE sender_id = $1 AND created_at > now() - interval '1 minute'`,
      [senderId],
    );
    if (row!.sent >= CONVERSATION_LIMITS.messagesPerMinute) {
      throw new DomainError(
        'rate-limited',
        'message-rate-limited',
        `At most ${CONVERSATION_LIMITS.messagesPerMinute} messages a minute; try again shortly.`,
        {
          retryAfter: Math.max(1, row!.retry_after ?? 60),
        },
      );
    }
  }

  private async markRead(conversationId: string, readerId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(`UPDATE messages SET viewed_at = now() WHERE conversation_id = $1 AND sender_id <> $2 AND viewed_at IS NULL`, [
        conversationId,
        readerId,
      ]);
      await tx.query(`UPDATE conversation_participants SET unread_count = 0 WHERE conversation_id = $1 AND user_id = $2`, [
        conversationId,
        readerId,
      ]);
      await touchInbox(tx, readerId);
    });
  }
}
