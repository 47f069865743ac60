import { webhookBody, WEBHOOK_EVENTS, type WebhookEventType } from '../services/events/payloads';
import type { SchemaComponents } from './openapi-schema';

type JsonSchema = Record<string, unknown>;

/**
 * The Standard Webhooks headers of every delivery (docs/webhooks.md, "What a receiver gets"), as
 * the parameters of each webhook operation: what a receiver must read to verify and deduplicate.
 */
const DELIVERY_HEADERS = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: "The event's id: the same on every retry and replay of the event, so a receiver drops duplicates by it.",
    schema: { type: 'string', minLength: 1 },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Unix time in seconds of this attempt (fresh per attempt); refuse messages too far from your clock.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the ' +
      "endpoint's `whsec_` secret. Any Standard Webhooks library verifies it.",
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$' },
  },
];

const RESPONSES = {
  '200': { description: 'Any 2xx answer within `WEBHOOK_TIMEOUT` (15 s) is a delivery; its body is not read.' },
  '410': { description: 'Gone: the event is not retried and the endpoint is disabled (`disabledReason: GONE`).' },
  default: {
    description:
      'Any other answer, a redirect, or none in time: retried on the schedule (about 27.6 h in all), or later when the answer carries `Retry-After`.',
  },
};

const operationId = (type: WebhookEventType) =>
  type
    .toLowerCase()
    .split('_')
    .map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1)))
    .join('');

/**
 * The document's `webhooks`: one POST per event type, its body `{type, data}` (a component per
 * type, `ListingCreatedEvent`…) from the payload schemas in src/services/events/payloads.ts,
 * converted as every other schema. No union component: the linters refuse a component no
 * operation uses, and a generated client spells the union from `webhooks` itself.
 */
export function webhooksSection(components: SchemaComponents, tag: string): Record<string, unknown> {
  const types = Object.keys(WEBHOOK_EVENTS) as WebhookEventType[];
  const webhooks: Record<string, unknown> = {};
  for (const type of types) {
    const body: JsonSchema = components.convert(webhookBody(type));
    webhooks[type] = {
      post: {
        operationId: `${operationId(type)}Webhook`,
        tags: [tag],
        summary: WEBHOOK_EVENTS[type].when,
        description:
          'POSTed to every enabled endpoint of the seller subscribed to this type, signed per Standard Webhooks. ' +
          'Receivers must ignore types they do not know. See docs/webhooks.md.',
        security: [],
        parameters: DELIVERY_HEADERS,
        requestBody: { required: true, content: { 'application/json': { schema: body } } },
        responses: RESPONSES,
      },
    };
  }
  return webhooks;
}
