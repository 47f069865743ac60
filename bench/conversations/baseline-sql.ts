// The baseline's answers: each route's page as ONE SQL statement building the same JSON
// (users as summaries, last messages, attachments), first page of 20.

const SUMMARY = (u: string) => `jsonb_build_object('id', ${u}.id, 'username', ${u}.username, 'reviews', ${u}.reviews_count,
  'rating', CASE WHEN ${u}.reviews_count = 0 THEN 0 ELSE round(${u}.rating_sum::numeric / ${u}.reviews_count, 2) END,
  'score', round((${u}.rating_sum + 20)::numeric / (${u}.reviews_count + 5), 2), 'sales', ${u}.sales_count,
  'purchases', ${u}.purchases_count, 'joined', ${u}.created_at, 'avatar', ${u}.avatar_url, 'cover', ${u}.cover_url, 'profile', ${u}.profile)`;

const MESSAGE = (
  m: string,
  s: string,
) => `jsonb_build_object('id', ${m}.id, 'conversationId', ${m}.conversation_id, 'sender', ${SUMMARY(s)},
  'body', ${m}.body, 'createdAt', ${m}.created_at, 'viewedAt', ${m}.viewed_at,
  'attachments', coalesce((SELECT jsonb_agg(jsonb_build_object('id', a.id, 'imageId', a.image_id, 'url', 'http://127.0.0.1/images/' || a.image_id))
                             FROM message_attachments a WHERE a.message_id = ${m}.id), '[]'::jsonb))`;

export const BASELINE_INBOX_SQL = `
  SELECT jsonb_build_object('total', (SELECT count(*) FROM conversation_participants WHERE user_id = $1), 'page', 1, 'size', 20,
    'conversations', coalesce(jsonb_agg(jsonb_build_object('id', c.id, 'source', jsonb_build_object('type', c.source_type, 'id', c.source_id),
      'userA', ${SUMMARY('ua')}, 'userB', ${SUMMARY('ub')}, 'locked', c.locked_by IS NOT NULL, 'lockedBy', c.locked_by,
      'createdAt', c.created_at, 'updatedAt', c.updated_at, 'unread', p.unread_count,
      'lastMessage', (SELECT ${MESSAGE('m', 'su')} FROM messages m JOIN users su ON su.id = m.sender_id WHERE m.id = c.last_message_id))
      ORDER BY p.last_activity_at DESC, p.conversation_id DESC), '[]'::jsonb)) AS body
    FROM (SELECT * FROM conversation_participants WHERE user_id = $1 ORDER BY last_activity_at DESC, conversation_id DESC LIMIT 20) p
    JOIN conversations c ON c.id = p.conversation_id
    JOIN users ua ON ua.id = c.user_a_id JOIN users ub ON ub.id = c.user_b_id`;

export const BASELINE_MESSAGES_SQL = `
  SELECT coalesce(jsonb_agg(${MESSAGE('m', 's')} ORDER BY m.id DESC), '[]'::jsonb) AS body
    FROM (SELECT * FROM messages WHERE conversation_id = $1 ORDER BY id DESC LIMIT 20) m
    JOIN users s ON s.id = m.sender_id`;

export const BASELINE_UNREAD_SQL = `
  SELECT jsonb_build_object('messages', coalesce(sum(unread_count), 0), 'conversations', count(*) FILTER (WHERE unread_count > 0)) AS body
    FROM conversation_participants WHERE user_id = $1`;
