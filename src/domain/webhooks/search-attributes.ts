import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Search attributes of `webhook:{eventId}:{endpointId}` deliveries, so an operator can list
 * "the failed deliveries of seller X" or "everything sent to endpoint Y" (README, "Finding
 * workflows"). Ids and enums only. Endpoint, seller and event type are set when the delivery
 * starts; the outcome when it ends (`delivered`, `failed`, `gone`, `disabled`, `skipped`).
 */
export const WEBHOOK_SEARCH_ATTRIBUTES = {
  endpointId: defineSearchAttributeKey('WebhookEndpointId', SearchAttributeType.KEYWORD),
  sellerId: defineSearchAttributeKey('WebhookSellerId', SearchAttributeType.KEYWORD),
  eventType: defineSearchAttributeKey('WebhookEventType', SearchAttributeType.KEYWORD),
  outcome: defineSearchAttributeKey('WebhookOutcome', SearchAttributeType.KEYWORD),
};
