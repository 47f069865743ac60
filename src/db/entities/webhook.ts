import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** Why an endpoint is disabled: by its owner, by a `410 Gone` answer, or after failing too long. */
export type WebhookDisabledReason = 'MANUAL' | 'GONE' | 'FAILING';

/** A seller's webhook endpoint. The signing secret is stored encrypted, never hashed: it keys HMACs. */
@Entity({ name: 'webhook_endpoints' })
export class WebhookEndpoint {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'seller_id', type: 'uuid' })
  sellerId: string;

  @Column({ type: 'text' })
  url: string;

  @Column({ type: 'text' })
  description: string;

  @Column({ type: 'text', array: true })
  subscriptions: string[];

  /** Custom request headers, name → value; names are lower-case. */
  @Column({ type: 'jsonb' })
  headers: Record<string, string>;

  @Column({ type: 'boolean' })
  enabled: boolean;

  @Column({ name: 'disabled_reason', type: 'text', nullable: true })
  disabledReason: WebhookDisabledReason | null;

  @Column({ name: 'secret_encrypted', type: 'text' })
  secretEncrypted: string;

  /** Start of the current run of failed attempts; cleared by any success. */
  @Column({ name: 'failing_since', type: 'timestamptz', nullable: true })
  failingSince: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

export type WebhookDeliveryStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

/** One event to one endpoint; `event_id` is the `webhook-id` receivers deduplicate on. */
@Entity({ name: 'webhook_deliveries' })
export class WebhookDelivery {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'endpoint_id', type: 'uuid' })
  endpointId: string;

  @Column({ name: 'event_id', type: 'uuid' })
  eventId: string;

  @Column({ name: 'event_type', type: 'text' })
  eventType: string;

  @Column({ type: 'text' })
  status: WebhookDeliveryStatus;

  @Column({ type: 'integer' })
  attempts: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'last_attempt_at', type: 'timestamptz', nullable: true })
  lastAttemptAt: Date | null;

  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true })
  deliveredAt: Date | null;
}

/** One HTTP attempt of a delivery, kept for metrics and failure inspection. */
@Entity({ name: 'webhook_attempts' })
export class WebhookAttempt {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'delivery_id', type: 'uuid' })
  deliveryId: string;

  @Column({ name: 'endpoint_id', type: 'uuid' })
  endpointId: string;

  @Column({ name: 'attempted_at', type: 'timestamptz' })
  attemptedAt: Date;

  @Column({ type: 'boolean' })
  succeeded: boolean;

  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode: number | null;

  @Column({ name: 'latency_ms', type: 'integer' })
  latencyMs: number;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @Column({ name: 'response_excerpt', type: 'text', nullable: true })
  responseExcerpt: string | null;
}
