import { DataSource } from 'typeorm';
import type { WebhookDeliveryPolicy } from '../../../workflows/contracts/webhook-delivery';
import { OutboxEvent, WebhookDelivery, WebhookEndpoint, type WebhookDisabledReason } from '../../db/entities';
import { newId, UUID_PATTERN } from '../../ids';
import { conflict, invalid, notFound, type FieldError } from '../errors';
import { requestWorkflowStart } from '../workflow-starts';
import type { WebhookDeliveryStart } from './fan-out';
import type { EventType } from '../events/outbox';
import { MAX_ENDPOINTS_PER_SELLER, normaliseHeaders, urlErrors } from './rules';
import { encryptSecret, newSigningSecret } from './signing';

export const TEST_EVENT_TYPE = 'TEST_WEBHOOK';

export interface WebhookEndpointView {
  id: string;
  url: string;
  description: string;
  subscriptions: string[];
  headers: Record<string, string>;
  enabled: boolean;
  disabledReason: WebhookDisabledReason | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface EndpointInput {
  url: string;
  description?: string;
  subscriptions?: EventType[];
  headers?: Record<string, string>;
  enabled?: boolean;
}

export type EndpointChanges = Partial<Omit<EndpointInput, 'subscriptions'>>;

export interface WebhookEndpointsOptions {
  secretKey: Buffer;
  allowPrivateUrls: boolean;
  /** Frozen into each test delivery and replay, like the dispatcher's deliveries. */
  deliveryPolicy: WebhookDeliveryPolicy;
}

const view = (e: WebhookEndpoint): WebhookEndpointView => ({
  id: e.id,
  url: e.url,
  description: e.description,
  subscriptions: e.subscriptions,
  headers: e.headers,
  enabled: e.enabled,
  disabledReason: e.disabledReason,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
});

const rejected = (errors: FieldError[]) => invalid('validation-failed', 'The request is invalid; see `errors` for each field.', errors);

/** The endpoint if it exists and belongs to the seller; 404 otherwise (also for malformed ids). */
export async function ownedEndpoint(db: DataSource, sellerId: string, id: string): Promise<WebhookEndpoint> {
  const endpoint = UUID_PATTERN.test(id) ? await db.getRepository(WebhookEndpoint).findOneBy({ id, sellerId }) : null;
  if (!endpoint) throw notFound('Webhook');
  return endpoint;
}

/**
 * A seller's webhook endpoints. Every query filters by the seller inside the SQL, so another
 * seller's endpoint is indistinguishable from a missing one (404).
 */
export class WebhookEndpoints {
  constructor(
    private readonly db: DataSource,
    private readonly deliveryStart: WebhookDeliveryStart,
    private readonly options: WebhookEndpointsOptions,
  ) {}

  async list(sellerId: string): Promise<WebhookEndpointView[]> {
    const rows = await this.db.getRepository(WebhookEndpoint).find({ where: { sellerId }, order: { createdAt: 'ASC' } });
    return rows.map(view);
  }

  async get(sellerId: string, id: string): Promise<WebhookEndpointView> {
    return view(await this.owned(sellerId, id));
  }

  async create(sellerId: string, input: EndpointInput): Promise<WebhookEndpointView & { secret: string }> {
    const headers = this.checked(input);
    const secret = newSigningSecret();
    return this.db.transaction(async (tx) => {
      // Serialise concurrent creations for one seller so the limit cannot be overshot.
      await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [sellerId]);
      const count = await tx.getRepository(WebhookEndpoint).countBy({ sellerId });
      if (count >= MAX_ENDPOINTS_PER_SELLER) {
        throw conflict('webhook-limit-reached', `A seller may register at most ${MAX_ENDPOINTS_PER_SELLER} webhook endpoints.`);
      }
      const enabled = input.enabled ?? true;
      const id = newId();
      await tx.getRepository(WebhookEndpoint).insert({
        id,
        sellerId,
        url: input.url,
        description: input.description ?? '',
        subscriptions: [...new Set(input.subscriptions ?? [])],
        headers: headers ?? {},
        enabled,
        disabledReason: enabled ? null : 'MANUAL',
        secretEncrypted: encryptSecret(this.options.secretKey, secret),
      });
      return { ...view(await tx.getRepository(WebhookEndpoint).findOneByOrFail({ id })), secret };
    });
  }

  /** Changes the given fields; enabling clears the failure history that may have disabled it. */
  async update(sellerId: string, id: string, changes: EndpointChanges): Promise<WebhookEndpointView> {
    const headers = this.checked(changes);
    const endpoint = await this.owned(sellerId, id);
    const patch: Partial<WebhookEndpoint> = {};
    if (changes.url !== undefined) patch.url = changes.url;
    if (changes.description !== undefined) patch.description = changes.description;
    if (headers !== undefined) patch.headers = headers;
    if (changes.enabled !== undefined && changes.enabled !== endpoint.enabled) {
      patch.enabled = changes.enabled;
      patch.disabledReason = changes.enabled ? null : 'MANUAL';
      patch.failingSince = null;
    }
    return this.save(sellerId, id, patch);
  }

  async setSubscriptions(sellerId: string, id: string, subscriptions: EventType[]): Promise<WebhookEndpointView> {
    return this.save(sellerId, id, { subscriptions: [...new Set(subscriptions)] });
  }

  /** Replaces the signing secret at once: the next attempt is signed with the new one. */
  async rotateSecret(sellerId: string, id: string): Promise<{ secret: string }> {
    const secret = newSigningSecret();
    await this.save(sellerId, id, { secretEncrypted: encryptSecret(this.options.secretKey, secret) });
    return { secret };
  }

  /** Permanent: the endpoint, its deliveries and attempts go; running deliveries stop at their next attempt. */
  async delete(sellerId: string, id: string): Promise<void> {
    if (!UUID_PATTERN.test(id)) throw notFound('Webhook');
    const result = await this.db.getRepository(WebhookEndpoint).delete({ id, sellerId });
    if (!result.affected) throw notFound('Webhook');
  }

  /**
   * Sends a synthetic `TEST_WEBHOOK` through the normal delivery path, to this endpoint only and
   * whether or not it is enabled (so an endpoint can be tried before it goes live). The event is
   * written to the outbox already dispatched, so the fan-out never sends it anywhere else; its
   * delivery is requested in the same transaction.
   */
  async sendTest(sellerId: string, id: string): Promise<{ eventId: string; type: string }> {
    await this.owned(sellerId, id);
    const eventId = newId();
    await this.db.transaction(async (tx) => {
      await tx.getRepository(OutboxEvent).insert({
        id: eventId,
        sellerId,
        type: TEST_EVENT_TYPE,
        data: { sellerId, createdAt: new Date().toISOString() },
        dispatchedAt: new Date(),
      });
      await requestWorkflowStart(
        tx,
        this.deliveryStart({ id: eventId, type: TEST_EVENT_TYPE, sellerId }, id, this.options.deliveryPolicy, { replay: false }),
      );
    });
    return { eventId, type: TEST_EVENT_TYPE };
  }

  /** Delivers one recorded delivery again, with its original `webhook-id`. */
  async replay(sellerId: string, endpointId: string, deliveryId: string): Promise<{ deliveryId: string; eventId: string }> {
    await this.owned(sellerId, endpointId);
    const delivery = UUID_PATTERN.test(deliveryId)
      ? await this.db.getRepository(WebhookDelivery).findOneBy({ id: deliveryId, endpointId })
      : null;
    if (!delivery) throw notFound('Delivery');
    // The delivery row says whether its workflow is still attempting: a replay then would be a
    // second sender for the same delivery (the start would find the id running and do nothing).
    if (delivery.status === 'PENDING') {
      throw conflict('webhook-delivery-in-progress', 'This delivery is still being attempted; replay it once it has finished.');
    }
    await this.db.transaction((tx) =>
      requestWorkflowStart(
        tx,
        this.deliveryStart({ id: delivery.eventId, type: delivery.eventType, sellerId }, endpointId, this.options.deliveryPolicy, {
          replay: true,
        }),
      ),
    );
    return { deliveryId, eventId: delivery.eventId };
  }

  private owned(sellerId: string, id: string): Promise<WebhookEndpoint> {
    return ownedEndpoint(this.db, sellerId, id);
  }

  private async save(sellerId: string, id: string, patch: Partial<WebhookEndpoint>): Promise<WebhookEndpointView> {
    await this.owned(sellerId, id);
    if (Object.keys(patch).length > 0) {
      await this.db.getRepository(WebhookEndpoint).update({ id, sellerId }, { ...patch, updatedAt: new Date() });
    }
    return this.get(sellerId, id);
  }

  /** Applies the URL and header rules (all errors at once); returns the normalised headers. */
  private checked(input: { url?: string; headers?: Record<string, string> }): Record<string, string> | undefined {
    const errors = input.url === undefined ? [] : urlErrors(input.url, this.options.allowPrivateUrls);
    const normalised = input.headers === undefined ? undefined : normaliseHeaders(input.headers);
    errors.push(...(normalised?.errors ?? []));
    if (errors.length > 0) throw rejected(errors);
    return normalised?.headers;
  }
}
