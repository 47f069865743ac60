import Joi from '../../joi';
import { EVENT_TYPES } from '../../services/events/outbox';
import { TEST_EVENT_TYPE } from '../../services/webhooks/endpoints';
import { METRIC_WINDOWS } from '../../services/webhooks/inspection';
import {
  HEADER_NAME,
  HEADER_VALUE,
  RESERVED_HEADER_NAME,
  MAX_CUSTOM_HEADERS,
  MAX_DESCRIPTION_LENGTH,
  MAX_ENDPOINTS_PER_SELLER,
  MAX_HEADER_VALUE_LENGTH,
} from '../../services/webhooks/rules';
import { MAX_URL_LENGTH } from '../../services/webhooks/url-policy';
import { defineRoute } from '../route';
import { documentedAs, timestamp } from '../schemas';
import type { WebhookEndpoints } from '../../services/webhooks/endpoints';
import type { WebhookInspection } from '../../services/webhooks/inspection';

const TAG = 'Webhooks';
const DOCS = 'See docs/webhooks.md for delivery, signing and retries.';

const webhookParams = Joi.object({ webhookId: Joi.string().max(64).required() });

const url = Joi.string().max(MAX_URL_LENGTH);
const description = Joi.string().allow('').max(MAX_DESCRIPTION_LENGTH);
const subscriptions = Joi.array()
  .items(Joi.string().valid(...EVENT_TYPES))
  .max(EVENT_TYPES.length * 2);
const headers = Joi.object()
  .pattern(
    // Reserved names are refused by the service, which names each; the document says which.
    documentedAs(Joi.string().pattern(HEADER_NAME), Joi.string().pattern(HEADER_NAME).pattern(RESERVED_HEADER_NAME, { invert: true })),
    // The characters a value may hold are checked by the service, which names each bad header.
    documentedAs(Joi.string().max(MAX_HEADER_VALUE_LENGTH).required(), Joi.string().max(MAX_HEADER_VALUE_LENGTH).pattern(HEADER_VALUE)),
  )
  .max(MAX_CUSTOM_HEADERS);

const endpointView = Joi.object({
  id: Joi.string().required(),
  url: Joi.string().required(),
  description: Joi.string().allow('').required(),
  subscriptions: Joi.array().items(Joi.string()).required(),
  headers: Joi.object().pattern(Joi.string(), Joi.string()).required(),
  enabled: Joi.boolean().required(),
  disabledReason: Joi.string().valid('MANUAL', 'GONE', 'FAILING').allow(null).required(),
  createdAt: timestamp.required(),
  updatedAt: timestamp.required(),
}).meta({ component: 'WebhookEndpoint' });
const secretView = Joi.object({
  secret: Joi.string()
    .pattern(/^whsec_/)
    .required(),
}).meta({ component: 'WebhookSecret' });

const notFound = { description: 'No such webhook, or not the caller’s.' };
const noStore = { 'Cache-Control': 'no-store' };

/** The services these routes use (their feature module's, src/modules). */
export interface WebhookRouteServices {
  webhooks: WebhookEndpoints;
  webhookInspection: WebhookInspection;
}

export const webhookRoutes = (s: WebhookRouteServices) => [
  defineRoute<'listWebhooks', 'seller'>({
    operationId: 'listWebhooks',
    method: 'get',
    path: '/seller/webhooks',
    tag: TAG,
    summary: "List the caller's webhook endpoints (never their secrets)",
    auth: 'seller',
    responses: { 200: { description: 'Endpoints, oldest first.', schema: Joi.array().items(endpointView) } },
    handler: async ({ principal }) => ({ status: 200, body: await s.webhooks.list(principal.userId) }),
  }),

  defineRoute<'createWebhook', 'seller'>({
    operationId: 'createWebhook',
    method: 'post',
    path: '/seller/webhooks',
    tag: TAG,
    summary: 'Register a webhook endpoint; its signing secret is shown only in this response',
    description: `\`url\` must be https and public outside development. Subscriptions from ${EVENT_TYPES.join(', ')}. At most ${MAX_ENDPOINTS_PER_SELLER} endpoints per seller and ${MAX_CUSTOM_HEADERS} custom headers, which cannot override the delivery headers. \`enabled\` defaults to true. ${DOCS}`,
    // Its answer holds a secret shown once; a stored copy would outlive the moment.
    idempotent: false,
    auth: 'seller',
    request: {
      body: Joi.object({
        url: url.required(),
        description,
        subscriptions,
        headers,
        enabled: Joi.boolean(),
      }).example({
        url: 'https://hooks.cardshop.example/marketplace',
        description: 'Stock sync',
        subscriptions: ['ORDER_CREATED', 'ORDER_CANCELLED', 'LISTING_UPDATED'],
        headers: { 'X-Shop-Id': 'helsinki-1' },
      }),
    },
    responses: {
      201: {
        description: 'The endpoint with its `secret` (`whsec_…`), shown once.',
        schema: endpointView.keys({ secret: Joi.string().required() }).meta({ component: 'CreatedWebhookEndpoint' }),
      },
      409: { description: 'The seller already has the maximum number of endpoints.' },
    },
    handler: async ({ principal, body }) => ({ status: 201, body: await s.webhooks.create(principal.userId, body), headers: noStore }),
  }),

  defineRoute<'getWebhook', 'seller'>({
    operationId: 'getWebhook',
    method: 'get',
    path: '/seller/webhooks/{webhookId}',
    tag: TAG,
    summary: 'One webhook endpoint',
    auth: 'seller',
    request: { params: webhookParams },
    responses: { 200: { description: 'The endpoint.', schema: endpointView }, 404: notFound },
    handler: async ({ principal, params }) => ({ status: 200, body: await s.webhooks.get(principal.userId, params.webhookId) }),
  }),

  defineRoute<'updateWebhook', 'seller'>({
    operationId: 'updateWebhook',
    method: 'patch',
    path: '/seller/webhooks/{webhookId}',
    tag: TAG,
    summary: 'Change the URL, description, custom headers (replaced as a whole) or enable/disable the endpoint',
    description:
      'Enabling an endpoint that was disabled (by its owner, by a `410 Gone` or after failing too long) clears its failure history.',
    auth: 'seller',
    request: {
      params: webhookParams,
      body: Joi.object({ url, description, headers, enabled: Joi.boolean() })
        .min(1)
        .example({ description: 'Stock sync (paused for the stocktake)', enabled: false }),
    },
    responses: { 200: { description: 'The updated endpoint.', schema: endpointView }, 404: notFound },
    handler: async ({ principal, params, body }) => ({
      status: 200,
      body: await s.webhooks.update(principal.userId, params.webhookId, body),
    }),
  }),

  defineRoute<'setWebhookSubscriptions', 'seller'>({
    operationId: 'setWebhookSubscriptions',
    method: 'put',
    path: '/seller/webhooks/{webhookId}/subscriptions',
    tag: TAG,
    summary: 'Replace the event types the endpoint receives',
    description: 'Matched when an event is dispatched: events dispatched after this change follow it.',
    auth: 'seller',
    request: {
      params: webhookParams,
      body: Joi.object({ subscriptions: subscriptions.required() }).example({
        subscriptions: ['ORDER_CREATED', 'ORDER_UPDATED', 'ORDER_CANCELLED'],
      }),
    },
    responses: { 200: { description: 'The updated endpoint.', schema: endpointView }, 404: notFound },
    handler: async ({ principal, params, body }) => ({
      status: 200,
      body: await s.webhooks.setSubscriptions(principal.userId, params.webhookId, body.subscriptions),
    }),
  }),

  defineRoute<'rotateWebhookSecret', 'seller'>({
    operationId: 'rotateWebhookSecret',
    method: 'post',
    path: '/seller/webhooks/{webhookId}/secret',
    tag: TAG,
    summary: 'Replace the signing secret; the new one is shown only in this response',
    description: 'Effective immediately: every later attempt, including retries of earlier events, is signed with the new secret.',
    // Its answer holds a secret shown once; a stored copy would outlive the moment.
    idempotent: false,
    auth: 'seller',
    request: { params: webhookParams },
    responses: { 200: { description: 'The new secret.', schema: secretView }, 404: notFound },
    handler: async ({ principal, params }) => ({
      status: 200,
      body: await s.webhooks.rotateSecret(principal.userId, params.webhookId),
      headers: noStore,
    }),
  }),

  defineRoute<'testWebhook', 'seller'>({
    operationId: 'testWebhook',
    method: 'post',
    path: '/seller/webhooks/{webhookId}/test',
    tag: TAG,
    summary: `Send a ${TEST_EVENT_TYPE} event to this endpoint, even while it is disabled`,
    description: `Delivered like any event (signed, retried, recorded). ${DOCS}`,
    auth: 'seller',
    request: { params: webhookParams },
    responses: {
      202: {
        description: 'The test event is on its way.',
        schema: Joi.object({ eventId: Joi.string().required(), type: Joi.string().required() }),
      },
      404: notFound,
    },
    handler: async ({ principal, params }) => ({ status: 202, body: await s.webhooks.sendTest(principal.userId, params.webhookId) }),
  }),

  defineRoute<'webhookMetrics', 'seller'>({
    operationId: 'webhookMetrics',
    method: 'get',
    path: '/seller/webhooks/{webhookId}/metrics',
    tag: TAG,
    summary: 'Deliveries, success rate and attempt latency percentiles over a window',
    auth: 'seller',
    request: {
      params: webhookParams,
      query: Joi.object({
        window: Joi.string()
          .valid(...METRIC_WINDOWS)
          .default('24h'),
      }),
    },
    responses: {
      200: {
        description: 'Metrics of deliveries created and attempts made within the window.',
        schema: Joi.object({
          window: Joi.string().required(),
          deliveries: Joi.object({
            total: Joi.number().integer().required(),
            succeeded: Joi.number().integer().required(),
            failed: Joi.number().integer().required(),
            pending: Joi.number().integer().required(),
          }).required(),
          successRate: Joi.number().min(0).max(1).allow(null).required(),
          attempts: Joi.object({ total: Joi.number().integer().required(), failed: Joi.number().integer().required() }).required(),
          latencyMs: Joi.object({
            p50: Joi.number().allow(null).required(),
            p90: Joi.number().allow(null).required(),
            p99: Joi.number().allow(null).required(),
          }).required(),
        }),
      },
      404: notFound,
    },
    handler: async ({ principal, params, query }) => ({
      status: 200,
      body: await s.webhookInspection.metrics(principal.userId, params.webhookId, query.window),
    }),
  }),

  defineRoute<'webhookFailures', 'seller'>({
    operationId: 'webhookFailures',
    method: 'get',
    path: '/seller/webhooks/{webhookId}/failures',
    tag: TAG,
    summary: 'Failed delivery attempts, newest first, filterable and paged',
    auth: 'seller',
    request: {
      params: webhookParams,
      query: Joi.object({
        page: Joi.number().integer().min(1).max(10_000).default(1),
        size: Joi.number().integer().min(1).max(100).default(20),
        statusCode: Joi.number().integer().min(100).max(599),
        eventType: Joi.string().valid(...EVENT_TYPES, TEST_EVENT_TYPE),
        since: timestamp,
      }),
    },
    responses: {
      200: {
        description: 'One page of failed attempts.',
        schema: Joi.object({
          items: Joi.array()
            .items(
              Joi.object({
                attemptId: Joi.string().required(),
                deliveryId: Joi.string().required(),
                eventId: Joi.string().required(),
                eventType: Joi.string().required(),
                deliveryStatus: Joi.string().valid('PENDING', 'SUCCEEDED', 'FAILED').required(),
                attemptedAt: timestamp.required(),
                statusCode: Joi.number().integer().allow(null).required(),
                latencyMs: Joi.number().integer().required(),
                error: Joi.string().allow(null).required(),
                responseExcerpt: Joi.string().allow(null, '').required(),
              }),
            )
            .required(),
          page: Joi.number().integer().required(),
          size: Joi.number().integer().required(),
          total: Joi.number().integer().required(),
        }),
      },
      404: notFound,
    },
    handler: async ({ principal, params, query }) => ({
      status: 200,
      body: await s.webhookInspection.failures(principal.userId, params.webhookId, query),
    }),
  }),

  defineRoute<'replayWebhookDelivery', 'seller'>({
    operationId: 'replayWebhookDelivery',
    method: 'post',
    path: '/seller/webhooks/{webhookId}/deliveries/{deliveryId}/replay',
    tag: TAG,
    summary: 'Deliver one recorded delivery again (same `webhook-id`, fresh signature)',
    auth: 'seller',
    request: { params: webhookParams.keys({ deliveryId: Joi.string().max(64).required() }) },
    responses: {
      202: {
        description: 'The replay is on its way.',
        schema: Joi.object({ deliveryId: Joi.string().required(), eventId: Joi.string().required() }),
      },
      404: { description: 'No such webhook or delivery, or not the caller’s.' },
      409: { description: 'The delivery is still being attempted.' },
    },
    handler: async ({ principal, params }) => ({
      status: 202,
      body: await s.webhooks.replay(principal.userId, params.webhookId, params.deliveryId),
    }),
  }),

  defineRoute<'deleteWebhook', 'seller'>({
    operationId: 'deleteWebhook',
    method: 'delete',
    path: '/seller/webhooks/{webhookId}',
    tag: TAG,
    summary: 'Delete a webhook endpoint permanently',
    description: 'Its delivery history goes with it; deliveries in progress stop at their next attempt.',
    auth: 'seller',
    request: { params: webhookParams },
    responses: { 204: { description: 'Deleted.' }, 404: notFound },
    handler: async ({ principal, params }) => {
      await s.webhooks.delete(principal.userId, params.webhookId);
      return { status: 204 };
    },
  }),
];
