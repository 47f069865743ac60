import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One line of the completed-sales ledger: units of an item sold at a unit price (pence). */
@Entity({ name: 'item_sales' })
export class ItemSale {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'item_urn', type: 'text' })
  itemUrn: string;

  @Column({ name: 'listing_id', type: 'uuid' })
  listingId: string;

  @Column({ name: 'order_id', type: 'uuid', nullable: true })
  orderId: string | null;

  @Column({ name: 'unit_price', type: 'integer' })
  unitPrice: number;

  @Column({ type: 'integer' })
  quantity: number;

  /** The condition of the copies sold (listing-input.ts CONDITIONS); null only on sales recorded before it was kept whose order and listing are gone. */
  @Column({ type: 'text', nullable: true })
  condition: string | null;

  @Column({ name: 'sold_at', type: 'timestamptz' })
  soldAt: Date;
}
