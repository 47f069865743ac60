import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** Catalog hierarchy: game → series → set → item, each keyed by its URN (e.g. `pokemon/base/base1/4`). */
@Entity({ name: 'catalog_games' })
export class CatalogGame {
  @PrimaryColumn({ type: 'text' })
  urn: string;

  @Column({ type: 'text' })
  name: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

@Entity({ name: 'catalog_series' })
export class CatalogSeries {
  @PrimaryColumn({ type: 'text' })
  urn: string;

  @Column({ name: 'game_urn', type: 'text' })
  gameUrn: string;

  @Column({ type: 'text' })
  name: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

@Entity({ name: 'catalog_sets' })
export class CatalogSet {
  @PrimaryColumn({ type: 'text' })
  urn: string;

  @Column({ name: 'series_urn', type: 'text' })
  seriesUrn: string;

  @Column({ name: 'game_urn', type: 'text' })
  gameUrn: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ name: 'printed_count', type: 'integer', nullable: true })
  printedCount: number | null;

  @Column({ name: 'total_count', type: 'integer', nullable: true })
  totalCount: number | null;

  @Column({ type: 'text', array: true })
  references: string[];

  @Column({ type: 'integer', nullable: true })
  size: number | null;

  @Column({ name: 'symbol_url', type: 'text', nullable: true })
  symbolUrl: string | null;

  @Column({ type: 'text', nullable: true })
  released: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

export interface ItemImage {
  urn: string;
  orientation: string;
  url: string;
  illustrator: string;
}

export interface ItemMetadata {
  name: string;
  value: string;
  detail: string[];
}

@Entity({ name: 'catalog_items' })
export class CatalogItem {
  /** Never ends with `/` (database CHECK). */
  @PrimaryColumn({ type: 'text' })
  urn: string;

  @Column({ type: 'text' })
  slug: string;

  @Column({ type: 'text' })
  type: string;

  @Column({ name: 'game_urn', type: 'text' })
  gameUrn: string;

  @Column({ name: 'series_urn', type: 'text' })
  seriesUrn: string;

  @Column({ name: 'set_urn', type: 'text' })
  setUrn: string;

  @Column({ type: 'text' })
  title: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  rarity: string;

  @Column({ type: 'text' })
  number: string;

  @Column({ type: 'text' })
  description: string;

  @Column({ type: 'jsonb' })
  images: ItemImage[];

  @Column({ type: 'jsonb' })
  alternatives: string[];

  @Column({ type: 'jsonb' })
  metadata: ItemMetadata[];

  /** Seed hint in pence from the source catalog; never shown as a listing price. */
  @Column({ name: 'reference_price', type: 'integer', nullable: true })
  referencePrice: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
