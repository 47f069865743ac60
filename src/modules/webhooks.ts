import { createWebhookActivities } from '../../activities/webhooks';
import { webhookRoutes } from '../http/routes/webhooks';
import { WebhookDeliveryAttempts } from '../services/webhooks/delivery-attempts';
import { WebhookEndpoints } from '../services/webhooks/endpoints';
import { deliveryPolicy } from '../services/webhooks/fan-out';
import { WebhookInspection } from '../services/webhooks/inspection';
import type { FeatureModule } from './feature-module';

/** What the webhook routes use. */
export interface WebhooksServices {
  webhooks: WebhookEndpoints;
  webhookInspection: WebhookInspection;
}

/**
 * Seller webhooks (docs/webhooks.md): endpoints, deliveries and replays, and the
 * `webhook:{eventId}:{endpointId}` workflow's delivery attempt. The fan-out from the events outbox
 * is the start dispatcher's own first step (worker/start-dispatcher.ts), so it stays there.
 */
export const webhooksModule: FeatureModule<WebhooksServices> = {
  name: 'webhooks',
  tags: {
    Webhooks: 'Seller webhook endpoints, deliveries and replays; payloads are signed (docs/webhooks.md).',
  },
  api: {
    services: ({ config, db }) => ({
      webhooks: new WebhookEndpoints(db, {
        secretKey: config.webhooks.secretKey,
        allowPrivateUrls: config.webhooks.allowPrivateUrls,
        deliveryPolicy: deliveryPolicy(config.webhooks),
      }),
      webhookInspection: new WebhookInspection(db),
    }),
    routes: (services) => webhookRoutes(services),
  },
  worker: {
    activities: ({ config, db }) => ({ ...createWebhookActivities({ webhookAttempts: new WebhookDeliveryAttempts(db, config.webhooks) }) }),
  },
};
