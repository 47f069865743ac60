import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * The transactional outbox (docs/architecture.md, "Outboxes"): a write that emits a webhook
 * event inserts a row here in the same transaction. The dispatcher turns undispatched rows into
 * `webhook:{eventId}:{endpointId}` workflows and stamps `dispatched_at`.
 */
@Entity({ name: 'outbox_events' })
export class OutboxEvent {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  /** The seller the event belongs to; only that seller's endpoints receive it. */
  @Column({ name: 'seller_id', type: 'uuid' })
  sellerId: string;

  @Column({ type: 'text' })
  type: string;

  /** The event's `data` object exactly as delivered. */
  @Column({ type: 'jsonb' })
  data: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'dispatched_at', type: 'timestamptz', nullable: true })
  dispatchedAt: Date | null;

  /** When the alerts matcher read the event (docs/alerts.md, "Matching"); null until then. */
  @Column({ name: 'alerts_matched_at', type: 'timestamptz', nullable: true })
  alertsMatchedAt: Date | null;
}
