import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A direct upload: created as DRAFT, READY once its bytes are stored (then it can be attached). */
@Entity({ name: 'uploads' })
export class Upload {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'owner_id', type: 'uuid' })
  ownerId: string;

  @Column({ type: 'text' })
  status: 'DRAFT' | 'READY';

  @Column({ name: 'content_type', type: 'text', nullable: true })
  contentType: string | null;

  @Column({ name: 'byte_size', type: 'integer', nullable: true })
  byteSize: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'finalized_at', type: 'timestamptz', nullable: true })
  finalizedAt: Date | null;
}

export type ImportStatus = 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED';

/** A seller's CSV import; the `import:{id}` workflow processes it in batches. */
@Entity({ name: 'listing_imports' })
export class ListingImport {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'seller_id', type: 'uuid' })
  sellerId: string;

  @Column({ type: 'text' })
  status: ImportStatus;

  @Column({ type: 'text', select: false })
  csv: string;

  @Column({ name: 'total_rows', type: 'integer' })
  totalRows: number;

  @Column({ name: 'processed_rows', type: 'integer' })
  processedRows: number;

  @Column({ name: 'created_count', type: 'integer' })
  createdCount: number;

  @Column({ name: 'error_count', type: 'integer' })
  errorCount: number;

  /** Why the whole import failed (e.g. a missing required column); row errors live elsewhere. */
  @Column({ type: 'text', nullable: true })
  failure: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;
}

/** A seller's way of sending orders: price in pence, the countries it serves, tracked or not. */
@Entity({ name: 'delivery_options' })
export class DeliveryOption {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'seller_id', type: 'uuid' })
  sellerId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'integer' })
  price: number;

  @Column({ type: 'boolean' })
  tracked: boolean;

  /** ISO 3166-1 alpha-2 codes, upper case. */
  @Column({ type: 'text', array: true })
  countries: string[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
