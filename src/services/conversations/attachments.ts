import type { DataSource, EntityManager } from 'typeorm';
import { inspectImage } from '../../integrations/images/decode';
import type { ImageModerator } from '../../integrations/images/moderation';
import { ImageQueueFull } from '../../integrations/images/processor';
import { newId } from '../../ids';
import { conflict, DomainError, invalid, notFound, unavailable } from '../errors';
import type { Uploads } from '../uploads';
import type { AttachmentView } from './conversation-view';
import type { Conversations } from './conversations';
import { CONVERSATION_LIMITS } from './limits';

/**
 * Images on messages. Every READY upload was already decoded for real within the image budgets
 * and re-encoded without metadata when its bytes were stored (`Uploads.store`); an attachment
 * adds moderation. Checks are made once cheaply before moderation, and again under the
 * conversation's row lock before the insert.
 */
export class MessageAttachments {
  constructor(
    private readonly db: DataSource,
    private readonly conversations: Conversations,
    private readonly uploads: Uploads,
    private readonly moderator: ImageModerator,
  ) {}

  async attach(callerId: string, conversationId: string, messageId: string, uploadId: string): Promise<AttachmentView> {
    await this.db.transaction((tx) => this.check(tx, callerId, conversationId, messageId, uploadId));
    const upload = await this.uploads.readyBytes(callerId, uploadId);
    if (!upload) throw notReady();
    // The header only (the bytes passed the budgets when stored): size for the moderator and the row.
    const decoded = await inspectImage(upload.bytes, this.uploads.images.limits);
    let reasons: string[];
    try {
      reasons = await this.moderator.review(decoded, upload.bytes);
    } catch (err) {
      if (err instanceof ImageQueueFull) throw unavailable('Too many images are being processed; try again shortly.', { cause: err });
      throw err;
    }
    if (reasons.length > 0) {
      throw new DomainError('unprocessable', 'image-rejected', 'The image was rejected by moderation; see `reasons`.', { reasons });
    }
    const id = newId();
    await this.db.transaction(async (tx) => {
      await this.check(tx, callerId, conversationId, messageId, uploadId);
      await tx.query(`INSERT INTO message_attachments (id, message_id, image_id, width, height) VALUES ($1, $2, $3, $4, $5)`, [
        id,
        messageId,
        uploadId,
        decoded.width,
        decoded.height,
      ]);
    });
    return { id, imageId: uploadId, url: this.uploads.imageUrl(uploadId) };
  }

  /** Membership, message ownership (both 404), lock and limits (409), the upload (400); holds the conversation row. */
  private async check(tx: EntityManager, callerId: string, conversationId: string, messageId: string, uploadId: string) {
    await this.conversations.lockForWrite(tx, conversationId, callerId);
    const [message]: Array<{ attachments: number }> = await tx.query(
      `SELECT (SELECT count(*)::int FROM message_attachments a WHERE a.message_id = m.id) AS attachments
         FROM messages m WHERE m.id = $1 AND m.conversation_id = $2 AND m.sender_id = $3`,
      [messageId, conversationId, callerId],
    );
    if (!message) throw notFound('Message');
    const [upload]: Array<{ attached: boolean }> = await tx.query(
      `SELECT EXISTS (SELECT 1 FROM message_attachments a WHERE a.image_id = u.id) AS attached
         FROM uploads u WHERE u.id = $1 AND u.owner_id = $2 AND u.status = 'READY'`,
      [uploadId, callerId],
    );
    if (!upload) throw notReady();
    if (upload.attached) throw conflict('upload-already-attached', 'This upload is already attached to a message; upload the image again.');
    if (message.attachments >= CONVERSATION_LIMITS.attachmentsPerMessage) {
      throw conflict('attachment-limit-reached', `A message carries at most ${CONVERSATION_LIMITS.attachmentsPerMessage} images.`);
    }
  }
}

const notReady = () =>
  invalid('upload-not-ready', 'The upload is unknown, not yours, or has no image bytes yet.', [
    { in: 'body', field: 'id', message: '"id" must be a finished upload of yours' },
  ]);
