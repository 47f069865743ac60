import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * A review one party of an order leaves about the other. One per (order, reviewer), deleted ones
 * included; never of
 * oneself (database constraints). `automatic` marks the default 5-star review the review window
 * creates when a party stays silent.
 */
@Entity({ name: 'reviews' })
export class Review {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'order_id', type: 'uuid' })
  orderId: string;

  @Column({ name: 'reviewer_id', type: 'uuid' })
  reviewerId: string;

  @Column({ name: 'reviewed_user_id', type: 'uuid' })
  reviewedUserId: string;

  @Column({ type: 'smallint' })
  rating: number;

  @Column({ type: 'text', nullable: true })
  content: string | null;

  @Column({ type: 'integer' })
  revisions: number;

  @Column({ type: 'boolean' })
  automatic: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  /** Set when the author deletes it: the row stays so the author cannot write the order's review anew. */
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}
