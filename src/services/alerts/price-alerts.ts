import type { DataSource } from 'typeorm';
import { newId } from '../../ids';
import { conflict, notFound } from '../errors';
import { CatalogRefs } from '../wants/catalog-refs';
import type { Condition, WantedCard, WantedVariant } from '../wants/line-input';
import { refuseUnknown } from '../wants/wants-lists';

/** How many price alerts a user keeps (docs/alerts.md). */
export const MAX_PRICE_ALERTS = 100;

/** An alert names one item or a card by name within a game, as a wants line does, and a threshold. */
export interface PriceAlertInput {
  urn?: string;
  card?: WantedCard;
  maxPrice: number;
  minCondition?: Condition | null;
  languages?: string[] | null;
  variants?: WantedVariant[] | null;
}

export interface PriceAlertView {
  id: string;
  urn: string | null;
  card: WantedCard | null;
  maxPrice: number;
  minCondition: Condition | null;
  languages: string[] | null;
  variants: WantedVariant[] | null;
  createdAt: Date;
}

const COLUMNS = `id, item_urn AS urn, CASE WHEN card_name IS NULL THEN NULL ELSE json_build_object('game', game_urn, 'name', card_name) END AS card,
  max_price AS "maxPrice", min_condition AS "minCondition", languages, variants, created_at AS "createdAt"`;

/**
 * Price alerts (docs/alerts.md): an item or a card within a game, a threshold and the
 * constraints of a wants line. They are matched by `AlertMatcher` when listings change, never
 * here. Ownership is part of every statement.
 */
export class PriceAlerts {
  constructor(private readonly db: DataSource) {}

  /** The caller's alerts, oldest first: at most 100, so one answer holds them all. */
  list(userId: string): Promise<PriceAlertView[]> {
    return this.db.query(`SELECT ${COLUMNS} FROM price_alerts WHERE user_id = $1 ORDER BY id`, [userId]);
  }

  async get(userId: string, id: string): Promise<PriceAlertView> {
    const [row]: PriceAlertView[] = await this.db.query(`SELECT ${COLUMNS} FROM price_alerts WHERE id = $1 AND user_id = $2`, [id, userId]);
    if (!row) throw notFound('Price alert');
    return row;
  }

  /** Creates an alert on what the catalog has (a card name is stored in the catalog's spelling). */
  async create(userId: string, input: PriceAlertInput): Promise<PriceAlertView> {
    const refs = await CatalogRefs.load(this.db, { urns: input.urn ? [input.urn] : [], cards: input.card ? [input.card] : [] });
    refuseUnknown(refs, input, 'alert');
    const id = newId();
    await this.db.transaction(async (tx) => {
      await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
      const [{ count }]: [{ count: number }] = await tx.query(`SELECT count(*)::int AS count FROM price_alerts WHERE user_id = $1`, [
        userId,
      ]);
      if (count >= MAX_PRICE_ALERTS) {
        throw conflict('price-alert-limit-reached', `A user keeps at most ${MAX_PRICE_ALERTS} price alerts; delete one first.`);
      }
      await tx.query(
        `INSERT INTO price_alerts (id, user_id, item_urn, game_urn, card_name, max_price, min_condition, languages, variants)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb)`,
        [
          id,
          userId,
          input.urn ?? null,
          input.card?.game ?? null,
          input.card ? refs.spelling(input.card) : null,
          input.maxPrice,
          input.minCondition ?? null,
          input.languages ?? null,
          input.variants ? JSON.stringify(input.variants) : null,
        ],
      );
    });
    return this.get(userId, id);
  }

  /**
   * Deletes an alert; its notifications stay, no longer naming it (unlinked here: notifications
   * carry no foreign key, see migration 1733635000000).
   */
  async remove(userId: string, id: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const [, affected]: [unknown, number] = await tx.query(`DELETE FROM price_alerts WHERE id = $1 AND user_id = $2`, [id, userId]);
      if (!affected) throw notFound('Price alert');
      await tx.query(`UPDATE notifications SET alert_id = NULL WHERE alert_id = $1`, [id]);
    });
  }
}
