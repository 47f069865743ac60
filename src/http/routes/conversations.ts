import Joi from '../../joi';
import { CONVERSATION_LIMITS } from '../../services/conversations/limits';
import { MAX_MESSAGE_BODY } from '../../services/conversations/message-body';
import { defineRoute } from '../route';
import { documentedAs, idParams, moderationProblem, offsetPage, timestamp, userSummary } from '../schemas';
import type { Conversations } from '../../services/conversations/conversations';
import type { MessageAttachments } from '../../services/conversations/attachments';
import { pageQuery } from './discover-common';

const attachment = Joi.object({ id: Joi.string().required(), imageId: Joi.string().required(), url: Joi.string().uri().required() });
const message = Joi.object({
  id: Joi.string().required(),
  conversationId: Joi.string().required(),
  sender: userSummary.required(),
  body: Joi.string().required(),
  createdAt: timestamp.required(),
  viewedAt: timestamp.allow(null).required().description('When the recipient first read it; null while unread.'),
  attachments: Joi.array().items(attachment).required(),
});
const conversation = Joi.object({
  id: Joi.string().required(),
  source: Joi.object({ type: Joi.string().valid('ORDER', 'LISTING').required(), id: Joi.string().required() }).required(),
  userA: userSummary.required().description('Who opened the conversation.'),
  userB: userSummary.required().description('The recipient of its first message.'),
  locked: Joi.boolean().required(),
  lockedBy: Joi.string().allow(null).required().description('The participant who locked it; only they may unlock.'),
  createdAt: timestamp.required(),
  updatedAt: timestamp.required(),
  lastMessage: message.allow(null).required(),
  unread: Joi.number().integer().min(0).required().description("The other participant's messages the caller has not read."),
});
const BODY_RULE = `Plain text, at most ${MAX_MESSAGE_BODY} characters; any markup is removed before saving and the rest must not be empty.`;
// Published as trimmed, so that the document says white space alone is empty; the service
// checks it once markup is removed, naming the field ("must contain text").
const body = documentedAs(
  Joi.string().max(MAX_MESSAGE_BODY).required().description(BODY_RULE),
  Joi.string().trim().max(MAX_MESSAGE_BODY).description(BODY_RULE),
);
const messageParams = Joi.object({ id: Joi.string().uuid().required(), messageId: Joi.string().uuid().required() });
const rateLimited = {
  description: `\`message-rate-limited\`: over ${CONVERSATION_LIMITS.messagesPerMinute} messages in a minute; \`Retry-After\` says when to send again.`,
};
const NOT_IN = 'No such conversation, or the caller is not one of its two participants.';

/** The services these routes use (their feature module's, src/modules). */
export interface ConversationRouteServices {
  conversations: Conversations;
  messageAttachments: MessageAttachments;
}

export const conversationRoutes = (s: ConversationRouteServices) => [
  defineRoute<'createConversation', 'user'>({
    operationId: 'createConversation',
    method: 'post',
    path: '/conversations',
    tag: 'Conversations',
    summary: 'Open a conversation about an order or a listing, with its first message',
    description:
      "ORDER: between the order's buyer and seller. LISTING: a question from anyone but the seller, to the seller. " +
      'When the pair already has a conversation about that source, the message is added to it and the answer is 200. See docs/conversations.md.',
    auth: 'user',
    request: {
      body: Joi.object({
        source: Joi.object({
          type: Joi.string().valid('ORDER', 'LISTING').default('ORDER'),
          id: Joi.string().uuid().required().description('The order id or the listing id.'),
        }).required(),
        recipientId: Joi.string().uuid().required().description('The other party: of the order, or the seller of the listing.'),
        body,
      })
        .example({
          source: { type: 'ORDER', id: '0191f3c2-cf93-7076-a8c9-0d1e2f304152' },
          recipientId: '0191f3c2-9c60-7d43-b5f6-7a8b9c0d1e2f',
          body: 'Hi! Could you ship the Charizard in a toploader and a padded envelope? Thanks.',
        })
        .example({
          source: { type: 'LISTING', id: '0191f3c2-0bc6-73a9-9bfc-304152637485' },
          recipientId: '0191f3c2-9c60-7d43-b5f6-7a8b9c0d1e2f',
          body: 'Is the holo scratched? Could you send a photo of the front under light?',
        }),
    },
    responses: {
      201: { description: 'The new conversation with its first message.', schema: conversation },
      200: { description: 'The existing conversation of this pair about this source, with the message added.', schema: conversation },
      400: { description: '`validation-failed`, or `invalid-recipient`: the recipient is not the other party.' },
      404: { description: 'No such order or listing, or an order the caller is not a party to.' },
      409: { description: '`conversation-locked`: the existing conversation is locked.' },
      429: rateLimited,
    },
    handler: async ({ principal, body }) => {
      const { created, conversation } = await s.conversations.create(principal.userId, body);
      return { status: created ? 201 : 200, body: conversation };
    },
  }),

  defineRoute<'listConversations', 'user'>({
    operationId: 'listConversations',
    method: 'get',
    path: '/conversations',
    tag: 'Conversations',
    summary: "The caller's inbox: newest activity first, with each last message and unread count",
    auth: 'user',
    request: { query: pageQuery },
    responses: {
      200: {
        description: 'One page of conversations.',
        schema: offsetPage(conversation).meta({ component: 'ConversationPage' }),
      },
    },
    handler: async ({ principal, query }) => ({ status: 200, body: await s.conversations.inbox(principal.userId, query.page, query.size) }),
  }),

  defineRoute<'countUnreadMessages', 'user'>({
    operationId: 'countUnreadMessages',
    method: 'get',
    path: '/conversations/unread',
    tag: 'Conversations',
    summary: 'Total unread messages (cheap to poll)',
    description: 'Cached per user and invalidated by every message and every read; `version` changes exactly when the counts may have.',
    auth: 'user',
    responses: {
      200: {
        description: 'The counts.',
        schema: Joi.object({
          messages: Joi.number().integer().min(0).required(),
          conversations: Joi.number().integer().min(0).required().description('Conversations with at least one unread message.'),
          version: Joi.string().required(),
        }),
      },
    },
    handler: async ({ principal }) => ({ status: 200, body: await s.conversations.unreadTotal(principal.userId) }),
  }),

  defineRoute<'getConversation', 'user'>({
    operationId: 'getConversation',
    method: 'get',
    path: '/conversations/{id}',
    tag: 'Conversations',
    summary: 'One conversation of the caller',
    auth: 'user',
    request: { params: idParams },
    responses: { 200: { description: 'The conversation.', schema: conversation }, 404: { description: NOT_IN } },
    handler: async ({ principal, params }) => ({ status: 200, body: await s.conversations.get(principal.userId, params.id) }),
  }),

  defineRoute<'listMessages', 'user'>({
    operationId: 'listMessages',
    method: 'get',
    path: '/conversations/{id}/messages',
    tag: 'Conversations',
    summary: "A conversation's messages, newest first; reading marks the other participant's messages viewed",
    auth: 'user',
    request: { params: idParams, query: pageQuery },
    responses: { 200: { description: 'One page of messages.', schema: Joi.array().items(message) }, 404: { description: NOT_IN } },
    handler: async ({ principal, params, query }) => ({
      status: 200,
      body: await s.conversations.messages(principal.userId, params.id, query.page, query.size),
    }),
  }),

  defineRoute<'postMessage', 'user'>({
    operationId: 'postMessage',
    method: 'post',
    path: '/conversations/{id}/messages',
    tag: 'Conversations',
    summary: 'Send a message',
    auth: 'user',
    request: {
      params: idParams,
      body: Joi.object({ body }).example({ body: 'Posted this morning with Posti, tracking JJFI64523310000012345.' }),
    },
    responses: {
      201: { description: 'The message.', schema: message },
      404: { description: NOT_IN },
      409: { description: '`conversation-locked`.' },
      429: rateLimited,
    },
    handler: async ({ principal, params, body }) => ({
      status: 201,
      body: await s.conversations.post(principal.userId, params.id, body.body),
    }),
  }),

  defineRoute<'attachMessageImage', 'user'>({
    operationId: 'attachMessageImage',
    method: 'patch',
    path: '/conversations/{id}/messages/{messageId}/attachments',
    tag: 'Conversations',
    summary: 'Attach a finished image upload to your message',
    description:
      `At most ${CONVERSATION_LIMITS.attachmentsPerMessage} images a message. The image is decoded, moderated and re-encoded ` +
      'without metadata (EXIF/GPS, XMP, IPTC) before it is served. See docs/conversations.md for the rejection reasons.',
    auth: 'user',
    request: {
      params: messageParams,
      body: Joi.object({ id: Joi.string().uuid().required().description('The upload id.') }).example({
        id: '0191f3c2-7a4e-7b21-9c3d-5e6f7a8b9c0d',
      }),
    },
    responses: {
      200: { description: 'The attachment.', schema: attachment },
      400: { description: "`upload-not-ready`: the upload is unknown, not the caller's, or has no bytes." },
      404: { description: `${NOT_IN} Or no such message of the caller's in it.` },
      409: { description: '`conversation-locked`, `attachment-limit-reached` or `upload-already-attached`.' },
      422: {
        description:
          '`image-rejected`: moderation refused the image; `reasons` lists why. Also `idempotency-key-reused` (no `reasons`), ' +
          'as on every route that takes an `Idempotency-Key`.',
        schema: moderationProblem,
      },
    },
    handler: async ({ principal, params, body }) => ({
      status: 200,
      body: await s.messageAttachments.attach(principal.userId, params.id, params.messageId, body.id),
    }),
  }),

  defineRoute<'lockConversation', 'user'>({
    operationId: 'lockConversation',
    method: 'put',
    path: '/conversations/{id}/lock',
    tag: 'Conversations',
    summary: 'Lock a conversation: no new messages or attachments from either participant',
    description: 'Either participant may lock; only the one who locked may unlock. Reading stays possible.',
    auth: 'user',
    request: { params: idParams },
    responses: { 200: { description: 'The conversation, locked.', schema: conversation }, 404: { description: NOT_IN } },
    handler: async ({ principal, params }) => ({ status: 200, body: await s.conversations.lock(principal.userId, params.id) }),
  }),

  defineRoute<'unlockConversation', 'user'>({
    operationId: 'unlockConversation',
    method: 'delete',
    path: '/conversations/{id}/lock',
    tag: 'Conversations',
    summary: 'Unlock a conversation you locked',
    auth: 'user',
    request: { params: idParams },
    responses: {
      200: { description: 'The conversation, unlocked.', schema: conversation },
      404: { description: NOT_IN },
      409: { description: '`locked-by-other-party`: only the participant who locked may unlock.' },
    },
    handler: async ({ principal, params }) => ({ status: 200, body: await s.conversations.unlock(principal.userId, params.id) }),
  }),
];
