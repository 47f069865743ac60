import type { AttemptInput, AttemptResult, WebhookDeliveryAttempts } from '../src/services/webhooks/delivery-attempts';

export type { AttemptInput, AttemptResult };

export interface WebhookActivityDeps {
  webhookAttempts: WebhookDeliveryAttempts;
}

export interface WebhookActivities {
  attemptWebhookDelivery(input: AttemptInput): Promise<AttemptResult>;
}

export function createWebhookActivities({ webhookAttempts }: WebhookActivityDeps): WebhookActivities {
  return {
    attemptWebhookDelivery: (input) => webhookAttempts.attempt(input),
  };
}
