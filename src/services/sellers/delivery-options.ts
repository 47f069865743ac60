import type { DataSource } from 'typeorm';
import { DeliveryOption } from '../../db/entities';
import { newId } from '../../ids';
import { conflict, notFound } from '../errors';

/** Most delivery options one seller may define. */
export const MAX_DELIVERY_OPTIONS = 20;

export interface DeliveryOptionInput {
  name: string;
  /** Pence. */
  price: number;
  tracked: boolean;
  /** ISO 3166-1 alpha-2 codes the option delivers to. */
  countries: string[];
}

export interface DeliveryOptionView extends DeliveryOptionInput {
  id: string;
  createdAt: Date;
  updatedAt: Date;
}

const view = (o: DeliveryOption): DeliveryOptionView => ({
  id: o.id,
  name: o.name,
  price: o.price,
  tracked: o.tracked,
  countries: o.countries,
  createdAt: o.createdAt,
  updatedAt: o.updatedAt,
});

/** A seller's delivery options; the basket prices delivery with `availableTo`. */
export class DeliveryOptions {
  constructor(private readonly db: DataSource) {}

  async list(sellerId: string): Promise<DeliveryOptionView[]> {
    const rows = await this.db.getRepository(DeliveryOption).find({ where: { sellerId }, order: { createdAt: 'ASC', id: 'ASC' } });
    return rows.map(view);
  }

  /** The seller's options that deliver to `country`, cheapest first (for the basket's delivery costs). */
  async availableTo(sellerId: string, country: string): Promise<DeliveryOptionView[]> {
    const rows = await this.db
      .getRepository(DeliveryOption)
      .createQueryBuilder('o')
      .where('o.seller_id = :sellerId AND :country = ANY(o.countries)', { sellerId, country: country.toUpperCase() })
      .orderBy('o.price', 'ASC')
      .getMany();
    return rows.map(view);
  }

  async create(sellerId: string, input: DeliveryOptionInput): Promise<DeliveryOptionView> {
    return this.db.transaction(async (tx) => {
      // Serialises a seller's creations so two concurrent requests cannot both pass the cap.
      await tx.query(`SELECT 1 FROM seller_accounts WHERE user_id = $1 FOR UPDATE`, [sellerId]);
      const count = await tx.getRepository(DeliveryOption).countBy({ sellerId });
      if (count >= MAX_DELIVERY_OPTIONS) {
        throw conflict('delivery-option-limit-reached', `A seller may define at most ${MAX_DELIVERY_OPTIONS} delivery options.`);
      }
      const id = newId();
      await tx.getRepository(DeliveryOption).insert({ id, sellerId, ...input });
      return view(await tx.getRepository(DeliveryOption).findOneByOrFail({ id }));
    });
  }

  async update(sellerId: string, id: string, input: DeliveryOptionInput): Promise<DeliveryOptionView> {
    const result = await this.db.getRepository(DeliveryOption).update({ id, sellerId }, input);
    if (!result.affected) throw notFound('Delivery option');
    return view(await this.db.getRepository(DeliveryOption).findOneByOrFail({ id }));
  }

  async delete(sellerId: string, id: string): Promise<void> {
    const result = await this.db.getRepository(DeliveryOption).delete({ id, sellerId });
    if (!result.affected) throw notFound('Delivery option');
  }
}
