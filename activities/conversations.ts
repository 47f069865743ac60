import type { DataSource } from 'typeorm';
import { queueUnreadNotification, type NotificationCheck } from '../src/services/conversations/notifications';

export interface ConversationActivityDeps {
  db: DataSource;
}

export interface ConversationActivities {
  /** The e-mail to deliver about unread messages, or null (read meanwhile, recipient active, or told already). */
  queueUnreadNotification(check: NotificationCheck): Promise<string | null>;
}

export function createConversationActivities(deps: ConversationActivityDeps): ConversationActivities {
  return {
    queueUnreadNotification: (check) => queueUnreadNotification(deps.db, check),
  };
}
