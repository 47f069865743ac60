import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** One variant of the listed card (e.g. `{ "name": "finish", "value": "reverse holo" }`). */
export type ListingVariant = { [key: string]: string | number | boolean | null };

/**
 * A seller's offer of an item. Stock: `quantity` is what the seller has; `reserved` is held by
 * open checkouts (sum of active listing_holds), so `available = quantity - reserved` and the
 * listing is `locked` while `reserved > 0`. Both change only through conditional UPDATEs.
 * `item_urn` deliberately has no foreign key: a listing for an unknown item is stored and
 * reported `valid: false`.
 */
@Entity({ name: 'listings' })
export class Listing {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'seller_id', type: 'uuid' })
  sellerId: string;

  @Column({ name: 'item_urn', type: 'text' })
  itemUrn: string;

  @Column({ type: 'text' })
  condition: string;

  @Column({ type: 'text' })
  language: string;

  /** Pence. */
  @Column({ type: 'integer' })
  price: number;

  @Column({ type: 'integer' })
  quantity: number;

  @Column({ type: 'integer' })
  reserved: number;

  @Column({ type: 'text' })
  comment: string;

  @Column({ name: 'grading_provider', type: 'text', nullable: true })
  gradingProvider: string | null;

  @Column({ name: 'grading_score', type: 'text', nullable: true })
  gradingScore: string | null;

  @Column({ name: 'grading_number', type: 'text', nullable: true })
  gradingNumber: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  notes: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  reference: string | null;

  @Column({ type: 'jsonb' })
  variants: ListingVariant[];

  @Column({ type: 'boolean' })
  hidden: boolean;

  @Column({ type: 'boolean' })
  valid: boolean;

  /** Whether buyers may make offers (docs/offers.md), and the seller's thresholds in pence per unit. */
  @Column({ name: 'offers_enabled', type: 'boolean' })
  offersEnabled: boolean;

  @Column({ name: 'offer_auto_accept_at', type: 'integer', nullable: true })
  offerAutoAcceptAt: number | null;

  @Column({ name: 'offer_auto_decline_below', type: 'integer', nullable: true })
  offerAutoDeclineBelow: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  /** Soft delete: orders keep pointing at the listing they bought from. */
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}

@Entity({ name: 'listing_attachments' })
export class ListingAttachment {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'listing_id', type: 'uuid' })
  listingId: string;

  @Column({ name: 'image_id', type: 'text' })
  imageId: string;

  @Column({ type: 'text' })
  url: string;

  @Column({ type: 'integer' })
  position: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

/** Stock held for an open checkout; released on payment, failure or expiry. */
@Entity({ name: 'listing_holds' })
export class ListingHold {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'listing_id', type: 'uuid' })
  listingId: string;

  @Column({ name: 'checkout_id', type: 'uuid' })
  checkoutId: string;

  @Column({ type: 'integer' })
  quantity: number;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'released_at', type: 'timestamptz', nullable: true })
  releasedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
