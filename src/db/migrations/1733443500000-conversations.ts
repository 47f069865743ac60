import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Conversations between two users about an order or a listing, their messages and attachments (docs/conversations.md). */
export class Conversations1733443500000 implements MigrationInterface {
  name = 'Conversations1733443500000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE conversations (
        id uuid PRIMARY KEY,
        source_type text NOT NULL CHECK (source_type IN ('ORDER', 'LISTING')),
        source_id uuid NOT NULL,
        -- user_a opened the conversation, user_b is the recipient of its first message.
        user_a_id uuid NOT NULL REFERENCES users(id),
        user_b_id uuid NOT NULL REFERENCES users(id),
        locked_by uuid REFERENCES users(id),
        locked_at timestamptz,
        last_message_id uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT conversations_two_people CHECK (user_a_id <> user_b_id),
        CONSTRAINT conversations_lock_pair CHECK ((locked_by IS NULL) = (locked_at IS NULL))
      )`);
    // One conversation per source and pair of people, whoever opened it.
    await q.query(`
      CREATE UNIQUE INDEX conversations_one_per_source_and_pair
        ON conversations (source_type, source_id, LEAST(user_a_id, user_b_id), GREATEST(user_a_id, user_b_id))`);

    // One row per participant: the inbox and the unread counts read only this table.
    await q.query(`
      CREATE TABLE conversation_participants (
        conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users(id),
        other_user_id uuid NOT NULL REFERENCES users(id),
        unread_count integer NOT NULL DEFAULT 0 CHECK (unread_count >= 0),
        last_activity_at timestamptz NOT NULL,
        -- Created time of the newest message an e-mail told this participant about.
        notified_through timestamptz,
        -- That e-mail (its outbox row), so a retried notification step delivers it instead of writing another.
        notified_email_id uuid REFERENCES email_messages(id),
        PRIMARY KEY (conversation_id, user_id)
      )`);
    await q.query(`
      CREATE INDEX conversation_participants_inbox
        ON conversation_participants (user_id, last_activity_at DESC, conversation_id DESC)`);

    await q.query(`
      CREATE TABLE messages (
        id uuid PRIMARY KEY,
        conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        sender_id uuid NOT NULL REFERENCES users(id),
        body text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        viewed_at timestamptz
      )`);
    // Ids are UUID v7 (time-ordered): newest first is id DESC within a conversation.
    await q.query(`CREATE INDEX messages_by_conversation ON messages (conversation_id, id DESC)`);
    await q.query(`CREATE INDEX messages_unviewed ON messages (conversation_id) WHERE viewed_at IS NULL`);
    // The per-sender rate limit counts the last minute's messages.
    await q.query(`CREATE INDEX messages_by_sender_recent ON messages (sender_id, created_at DESC)`);
    await q.query(
      `ALTER TABLE conversations ADD CONSTRAINT conversations_last_message FOREIGN KEY (last_message_id) REFERENCES messages(id) DEFERRABLE INITIALLY DEFERRED`,
    );

    await q.query(`
      CREATE TABLE message_attachments (
        id uuid PRIMARY KEY,
        message_id uuid NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
        image_id uuid NOT NULL UNIQUE REFERENCES uploads(id),
        width integer NOT NULL,
        height integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX message_attachments_by_message ON message_attachments (message_id)`);

    // Bumped with every change to a user's unread counts: the cached total keys on it.
    await q.query(`
      CREATE TABLE inbox_versions (
        user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        version bigint NOT NULL DEFAULT 0
      )`);

    // When the user last made an authenticated request (stamped at most once a minute): what "inactive" is measured by.
    await q.query(`ALTER TABLE users ADD COLUMN last_active_at timestamptz`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users DROP COLUMN last_active_at`);
    await q.query(`DROP TABLE inbox_versions`);
    await q.query(`DROP TABLE message_attachments`);
    await q.query(`ALTER TABLE conversations DROP CONSTRAINT conversations_last_message`);
    await q.query(`DROP TABLE messages`);
    await q.query(`DROP TABLE conversation_participants`);
    await q.query(`DROP TABLE conversations`);
  }
}
