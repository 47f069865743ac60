import { createConversationActivities } from '../../activities/conversations';
import { conversationRoutes } from '../http/routes/conversations';
import { DEFAULT_MODERATION, EmbeddedImageModerator } from '../integrations/images/moderation';
import { MessageAttachments } from '../services/conversations/attachments';
import type { Conversations } from '../services/conversations/conversations';
import type { FeatureModule } from './feature-module';

/** What the conversation routes use. */
export interface ConversationsServices {
  conversations: Conversations;
  messageAttachments: MessageAttachments;
}

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
