import type { DataSource, EntityManager } from 'typeorm';
import { toUserSummary, type UserSummary, type UserSummaryRow } from '../users/user-summary';

export type SourceType = 'ORDER' | 'LISTING';

export interface AttachmentView {
  id: string;
  imageId: string;
  url: string;
}

/** The spec's Message. */
export interface MessageView {
  id: string;
  conversationId: string;
  sender: UserSummary;
  body: string;
  createdAt: Date;
  viewedAt: Date | null;
  attachments: AttachmentView[];
}

/** The spec's Conversation, plus who locked it and the caller's unread count. */
export interface ConversationView {
  id: string;
  source: { type: SourceType; id: string };
  userA: UserSummary;
  userB: UserSummary;
  locked: boolean;
  lockedBy: string | null;
  createdAt: Date;
  updatedAt: Date;
  lastMessage: MessageView | null;
  /** Messages of the other participant the caller has not read yet. */
  unread: number;
}

type Db = DataSource | EntityManager;
export type ImageUrl = (imageId: string) => string;

/*
 * Every view here is read with ONE statement: users, messages and attachments are joined in and
 * shaped as JSON by Postgres, so a page costs a single round trip whatever its size.
 */

/** A user summary's columns as JSON (`created_at` arrives as text). */
const userJson = (u: string) => `json_build_object(
  'id', ${u}.id, 'username', ${u}.username, 'reviews_count', ${u}.reviews_count, 'rating_sum', ${u}.rating_sum,
  'sales_count', ${u}.sales_count, 'purchases_count', ${u}.purchases_count, 'created_at', ${u}.created_at,
  'avatar_url', ${u}.avatar_url, 'cover_url', ${u}.cover_url, 'profile', ${u}.profile)`;

/** A message's attachments as a JSON array (null when none). */
const attachmentsJson = (m: string) =>
  `(SELECT json_agg(json_build_object('id', a.id, 'imageId', a.image_id) ORDER BY a.id) FROM message_attachments a WHERE a.message_id = ${m}.id)`;

type UserJson = Omit<UserSummaryRow, 'created_at'> & { created_at: string };
type AttachmentsJson = Array<{ id: string; imageId: string }> | null;

interface MessageRow {
  id: string;
  conversation_id: string;
  sender_id: string;
  body: string;
  created_at: Date;
  viewed_at: Date | null;
  attachments: AttachmentsJson;
}

const summary = (u: UserJson): UserSummary => toUserSummary({ ...u, created_at: new Date(u.created_at) });

const toMessage = (r: MessageRow, sender: UserSummary, imageUrl: ImageUrl): MessageView => ({
  id: r.id,
  conversationId: r.conversation_id,
  sender,
  body: r.body,
  createdAt: r.created_at,
  viewedAt: r.viewed_at,
  attachments: (r.attachments ?? []).map((a) => ({ id: a.id, imageId: a.imageId, url: imageUrl(a.imageId) })),
});

/**
 * The caller's unread count and one page of messages (newest first). The join on the caller's
 * participant row is the ownership check (null: not the caller's conversation).
 */
export async function participantMessagePage(
  db: Db,
  conversationId: string,
  userId: string,
  page: number,
  size: number,
  imageUrl: ImageUrl,
): Promise<{ unread: number; messages: MessageView[] } | null> {
  const rows: Array<Omit<MessageRow, 'id'> & { id: string | null; unread_count: number; sender: UserJson | null }> = await db.query(
    `SELECT p.unread_count, m.id, m.conversation_id, m.sender_id, m.body, m.created_at, m.viewed_at, m.attachments,
            CASE WHEN u.id IS NOT NULL THEN ${userJson('u')} END AS sender
       FROM conversation_participants p
       LEFT JOIN LATERAL (
         SELECT mm.*, ${attachmentsJson('mm')} AS attachments
           FROM messages mm WHERE mm.conversation_id = p.conversation_id ORDER BY mm.id DESC LIMIT $3 OFFSET $4
       ) m ON true
       LEFT JOIN users u ON u.id = m.sender_id
      WHERE p.conversation_id = $1 AND p.user_id = $2
      ORDER BY m.id DESC`,
    [conversationId, userId, size, (page - 1) * size],
  );
  if (rows.length === 0) return null;
  const messages = rows.filter((r) => r.id !== null).map((r) => toMessage(r as MessageRow, summary(r.sender!), imageUrl));
  return { unread: rows[0]!.unread_count, messages };
}

export async function messageById(db: Db, messageId: string, imageUrl: ImageUrl): Promise<MessageView> {
  const [row]: Array<MessageRow & { sender: UserJson }> = await db.query(
    `SELECT m.id, m.conversation_id, m.sender_id, m.body, m.created_at, m.viewed_at, ${attachmentsJson('m')} AS attachments, ${userJson('u')} AS sender
       FROM messages m JOIN users u ON u.id = m.sender_id WHERE m.id = $1`,
    [messageId],
  );
  return toMessage(row!, summary(row!.sender), imageUrl);
}

interface ConversationRow {
  id: string;
  source_type: SourceType;
  source_id: string;
  user_a: UserJson;
  user_b: UserJson;
  locked_by: string | null;
  created_at: Date;
  updated_at: Date;
  unread_count: number;
  last_message: (Omit<MessageRow, 'created_at' | 'viewed_at'> & { created_at: string; viewed_at: string | null }) | null;
}

/**
 * Conversations as the caller sees them, from `participants`: a SQL expression yielding the
 * caller's participant rows (filtered, ordered and paged as wanted), aliased `p`, with `$n`
 * parameters given in `params`. The result keeps that order.
 */
export async function conversationViews(db: Db, participants: string, params: unknown[], imageUrl: ImageUrl): Promise<ConversationView[]> {
  const rows: ConversationRow[] = await db.query(
    `SELECT c.id, c.source_type, c.source_id, c.locked_by, c.created_at, c.updated_at, p.unread_count,
            ${userJson('ua')} AS user_a, ${userJson('ub')} AS user_b,
            CASE WHEN m.id IS NOT NULL THEN json_build_object(
              'id', m.id, 'conversation_id', m.conversation_id, 'sender_id', m.sender_id, 'body', m.body,
              'created_at', m.created_at, 'viewed_at', m.viewed_at, 'attachments', ${attachmentsJson('m')}) END AS last_message
       FROM ${participants}
       JOIN conversations c ON c.id = p.conversation_id
       JOIN users ua ON ua.id = c.user_a_id
       JOIN users ub ON ub.id = c.user_b_id
       LEFT JOIN messages m ON m.id = c.last_message_id
      ORDER BY p.last_activity_at DESC, p.conversation_id DESC`,
    params,
  );
  return rows.map((r) => {
    const userA = summary(r.user_a);
    const userB = summary(r.user_b);
    const last = r.last_message;
    return {
      id: r.id,
      source: { type: r.source_type, id: r.source_id },
      userA,
      userB,
      locked: r.locked_by !== null,
      lockedBy: r.locked_by,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      lastMessage: last
        ? toMessage(
            { ...last, created_at: new Date(last.created_at), viewed_at: last.viewed_at ? new Date(last.viewed_at) : null },
            last.sender_id === userA.id ? userA : userB,
            imageUrl,
          )
        : null,
      unread: r.unread_count,
    };
  });
}
