import type { DataSource } from 'typeorm';
import { newId } from '../../src/ids';

/** Inserts a delivery option directly (for tests that are not about delivery options); returns its id. */
export async function insertDeliveryOption(db: DataSource, sellerId: string, price: number, countries: string[]): Promise<string> {
  const id = newId();
  await db.query(`INSERT INTO delivery_options (id, seller_id, name, price, tracked, countries) VALUES ($1, $2, $3, $4, false, $5)`, [
    id,
    sellerId,
    `Post ${price}`,
    price,
    countries,
  ]);
  return id;
}

/** A line as stored: one item (`urn`) or a card by name within a game. */
export interface WantsLineRow {
  urn?: string;
  game?: string;
  name?: string;
  quantity?: number;
  minCondition?: string;
  languages?: string[];
  variants?: Array<{ name: string; value: string }>;
  maxPrice?: number;
}

/** Inserts a wants list and its lines directly, in the order given; returns their ids. */
export async function insertWantsList(
  db: DataSource,
  userId: string,
  lines: WantsLineRow[],
): Promise<{ listId: string; lineIds: string[] }> {
  const listId = newId();
  await db.query(`INSERT INTO wants_lists (id, user_id, name) VALUES ($1, $2, $3)`, [listId, userId, `Deck ${listId}`]);
  const lineIds: string[] = [];
  for (const [i, line] of lines.entries()) {
    const id = newId();
    lineIds.push(id);
    await db.query(
      `INSERT INTO wants_lines (id, list_id, item_urn, game_urn, card_name, quantity, min_condition, languages, variants, max_price, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now() + $11 * interval '1 ms')`,
      [
        id,
        listId,
        line.urn ?? null,
        line.game ?? null,
        line.name ?? null,
        line.quantity ?? 1,
        line.minCondition ?? null,
        line.languages ?? null,
        line.variants ? JSON.stringify(line.variants) : null,
        line.maxPrice ?? null,
        i,
      ],
    );
  }
  return { listId, lineIds };
}
