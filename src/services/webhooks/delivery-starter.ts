import type { WebhookConfig } from '../../config';
import type { WorkflowStarters } from '../../temporal/starters';
import type { StartDelivery } from './endpoints';

/**
 * The one way deliveries are started (dispatcher, test deliveries, replays): the retry policy
 * from configuration is frozen into each workflow's input, so a running delivery keeps the
 * schedule it began with.
 */
export function webhookDeliveryStarter(starters: WorkflowStarters, config: WebhookConfig): StartDelivery {
  const policy = { retryScheduleMs: config.retryScheduleMs, attemptTimeoutMs: config.attemptTimeoutMs };
  return (eventId, endpointId, options) => starters.webhookDelivery({ eventId, endpointId, policy }, options);
}
