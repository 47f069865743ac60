import { createWebhookActivities } from '../../activities/webhooks';
import { webhookRoutes } from '../http/routes/webhooks';
import { WebhookDeliveryAttempts } from '../services/webhooks/delivery-attempts';
import { WebhookEndpoints } from '../services/webhooks/endpoints';
import { deliveryPolicy, type WebhookDeliveryStart } from '../services/webhooks/fan-out';
import { WEBHOOK_SEARCH_ATTRIBUTES } from '../domain/webhooks/search-attributes';
import { newId } from '../ids';
import { keyword } from '../services/workflow-starts/start';
import { WebhookInspection } from '../services/webhooks/inspection';
import type { FeatureModule } from './feature-module';
import { start } from './workflow-start';

/** What the webhook routes use. */
export interface WebhooksServices {
  webhooks: WebhookEndpoints;
  webhookInspection: WebhookInspection;
}

/** The ids of this feature's workflows: an operator finds one from the object's id. */
export const webhooksWorkflowIds = {
  delivery: (eventId: string, endpointId: string) => `webhook:${eventId}:${endpointId}`,
};

/**
 * The delivery of one event to one endpoint; the retry policy is frozen into its input, so a
 * running delivery keeps the schedule it began with. A replay is a deliberate re-run of the same
 * id: it gets its own request key and allows the duplicate. Rationed per seller, so one seller's
 * burst waits behind its own deliveries only (docs/webhooks.md, "Fairness"). Requested by the
 * endpoints' test and replay routes and by the start dispatcher's fan-out.
 */
export const webhookDeliveryStart: WebhookDeliveryStart = (event, endpointId, policy, options) => ({
  ...start(
    'webhookDeliveryWorkflow',
    webhooksWorkflowIds.delivery(event.id, endpointId),
    { eventId: event.id, endpointId, policy },
    {
      ...(options.replay ? { reusePolicy: 'ALLOW_DUPLICATE' } : {}),
      summary: `${options.replay ? 'Replay of webhook' : 'Webhook'} ${event.type} event ${event.id} to endpoint ${endpointId} of seller ${event.sellerId}`,
      searchAttributes: [
        keyword(WEBHOOK_SEARCH_ATTRIBUTES.endpointId, endpointId),
        keyword(WEBHOOK_SEARCH_ATTRIBUTES.sellerId, event.sellerId),
        keyword(WEBHOOK_SEARCH_ATTRIBUTES.eventType, event.type),
      ],
    },
    options.replay ? `replay:${newId()}` : undefined,
  ),
  fairnessKey: event.sellerId,
});

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
      webhooks: new WebhookEndpoints(db, webhookDeliveryStart, {
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
    // Deliveries run apart: their attempts are local activities (workflows/webhook-delivery.ts),
    // each holding a workflow task slot for its whole POST (docs/webhooks.md, "Delivery queue").
    workflowQueues: (config) => [
      { taskQueue: config.webhooks.taskQueue, workflowTypes: ['webhookDeliveryWorkflow'], concurrency: config.webhooks.concurrency },
    ],
  },
};
