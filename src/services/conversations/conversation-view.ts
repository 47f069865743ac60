import type { DataSource, EntityManager } from 'typeorm';
import { loadUserSummaries, type UserSummary } from '../users/user-summary';

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

export interface ConversationRow {
  id: string;
  source_type: SourceType;
  source_id: string;
  user_a_id: string;
  user_b_id: string;
  locked_by: string | null;
  created_at: Date;
  updated_at: Date;
  last_message_id: string | null;
  unread_count: number;
}

interface MessageRow {
  id: string;
  conversation_id: string;
  sender_id: string;
  body: string;
  created_at: Date;
  viewed_at: Date | null;
}

type Db = DataSource | EntityManager;
export type ImageUrl = (imageId: string) => string;

/** Columns of a conversation as the caller's participant row sees it (`c` conversations, `p` participants). */
export const CONVERSATION_COLUMNS =
  'c.id, c.source_type, c.source_id, c.user_a_id, c.user_b_id, c.locked_by, c.created_at, c.updated_at, c.last_message_id, p.unread_count';

async function attachmentsOf(db: Db, messageIds: string[], imageUrl: ImageUrl): Promise<Map<string, AttachmentView[]>> {
  const byMessage = new Map<string, AttachmentView[]>();
  if (messageIds.length === 0) return byMessage;
  const rows: Array<{ id: string; message_id: string; image_id: string }> = await db.query(
    `SELECT id, message_id, image_id FROM message_attachments WHERE message_id = ANY($1::uuid[]) ORDER BY id`,
    [messageIds],
  );
  for (const row of rows) {
    const list = byMessage.get(row.message_id) ?? [];
    list.push({ id: row.id, imageId: row.image_id, url: imageUrl(row.image_id) });
    byMessage.set(row.message_id, list);
  }
  return byMessage;
}

/** Message views in the rows' order, with a fixed number of queries whatever their count. */
export async function toMessageViews(db: Db, rows: MessageRow[], imageUrl: ImageUrl, senders?: Map<string, UserSummary>): Promise<MessageView[]> {
  const [summaries, attachments] = await Promise.all([
    senders ?? loadUserSummaries(db, rows.map((r) => r.sender_id)),
    attachmentsOf(db, rows.map((r) => r.id), imageUrl),
  ]);
  return rows.map((r) => ({
    id: r.id,
    conversationId: r.conversation_id,
    sender: summaries.get(r.sender_id)!,
    body: r.body,
    createdAt: r.created_at,
    viewedAt: r.viewed_at,
    attachments: attachments.get(r.id) ?? [],
  }));
}

export const MESSAGE_COLUMNS = 'm.id, m.conversation_id, m.sender_id, m.body, m.created_at, m.viewed_at';

/** One page of a conversation's messages, newest first. */
export async function messagePage(db: Db, conversationId: string, page: number, size: number, imageUrl: ImageUrl): Promise<MessageView[]> {
  const rows: MessageRow[] = await db.query(
    `SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.conversation_id = $1 ORDER BY m.id DESC LIMIT $2 OFFSET $3`,
    [conversationId, size, (page - 1) * size],
  );
  return toMessageViews(db, rows, imageUrl);
}

export async function messageById(db: Db, messageId: string, imageUrl: ImageUrl): Promise<MessageView> {
  const rows: MessageRow[] = await db.query(`SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.id = $1`, [messageId]);
  const [view] = await toMessageViews(db, rows, imageUrl);
  return view!;
}

/** Conversation views in the rows' order: one query for users, one for last messages, one for their attachments. */
export async function toConversationViews(db: Db, rows: ConversationRow[], imageUrl: ImageUrl): Promise<ConversationView[]> {
  if (rows.length === 0) return [];
  const lastIds = rows.map((r) => r.last_message_id).filter((id): id is string => id !== null);
  const [users, lastRows] = await Promise.all([
    loadUserSummaries(db, rows.flatMap((r) => [r.user_a_id, r.user_b_id])),
    lastIds.length ? (db.query(`SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.id = ANY($1::uuid[])`, [lastIds]) as Promise<MessageRow[]>) : [],
  ]);
  const lastViews = await toMessageViews(db, lastRows, imageUrl, users);
  const lastById = new Map(lastViews.map((m) => [m.id, m]));
  return rows.map((r) => ({
    id: r.id,
    source: { type: r.source_type, id: r.source_id },
    userA: users.get(r.user_a_id)!,
    userB: users.get(r.user_b_id)!,
    locked: r.locked_by !== null,
    lockedBy: r.locked_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    lastMessage: r.last_message_id ? (lastById.get(r.last_message_id) ?? null) : null,
    unread: r.unread_count,
  }));
}
