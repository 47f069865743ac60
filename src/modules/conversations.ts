import { createConversationActivities } from '../../activities/conversations';
import { conversationRoutes } from '../http/routes/conversations';
import { DEFAULT_MODERATION, EmbeddedImageModerator } from '../integrations/images/moderation';
import { MessageAttachments } from '../services/conversations/attachments';
import type { ConversationNotifyStart, Conversations } from '../services/conversations/conversations';
import { newMessageSignal } from '../../workflows/contracts/conversation-notify';
import type { FeatureModule } from './feature-module';
import { start } from './workflow-start';

/** What the conversation routes use. */
export interface ConversationsServices {
  conversations: Conversations;
  messageAttachments: MessageAttachments;
}

/** The ids of this feature's workflows: an operator finds one from the object's id. */
export const conversationsWorkflowIds = {
  notify: (conversationId: string, userId: string) => `conversation-notify:${conversationId}:${userId}`,
};

/**
 * A new message for `userId` in a conversation, as a signal-with-start of
 * `conversation-notify:{conversationId}:{userId}`: a running notification hears of it, and after
 * one ended a new run starts (ALLOW_DUPLICATE). Each message is its own request. Handed to the
 * shared conversations service by the composition root.
 */
export const conversationNotifyStart: ConversationNotifyStart = (messageId, input) =>
  start(
    'conversationNotifyWorkflow',
    conversationsWorkflowIds.notify(input.conversationId, input.userId),
    input,
    { reusePolicy: 'ALLOW_DUPLICATE', signal: { name: newMessageSignal.name, args: [] } },
    `message:${messageId}`,
  );

/**
 * Buyer–seller messaging (docs/conversations.md): the inbox, messages and moderated image
 * attachments, and the `conversation-notify:{conversationId}:{userId}` workflow's activity that
 * queues the e-mail about unread messages. The conversations service is shared: the account's
 * stats count unread messages through it.
 */
export const conversationsModule: FeatureModule<ConversationsServices> = {
  name: 'conversations',
  tags: {
    Conversations: 'Buyer–seller messaging about a listing or an order: inbox, unread counts, attachments. See docs/conversations.md.',
  },
  api: {
    services: ({ db, shared }) => ({
      conversations: shared.conversations,
      messageAttachments: new MessageAttachments(
        db,
        shared.conversations,
        shared.uploads,
        new EmbeddedImageModerator(DEFAULT_MODERATION, shared.images),
      ),
    }),
    routes: (services) => conversationRoutes(services),
  },
  worker: {
    activities: ({ db }) => ({ ...createConversationActivities({ db }) }),
  },
};
