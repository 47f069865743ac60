import type { DataSource, EntityManager } from 'typeorm';
import type { Condition, WantedCard, WantedVariant } from './line-input';
import { fittingListingsSql } from './line-fit';

/** A wants line as answered: what it asks for, and what the market offers for it now. */
export interface WantsLine {
  id: string;
  urn: string | null;
  card: WantedCard | null;
  quantity: number;
  minCondition: Condition | null;
  languages: string[] | null;
  variants: WantedVariant[] | null;
  maxPrice: number | null;
  /** Units on sale now that fit the line, within its `maxPrice`. */
  available: number;
  /** The lowest unit price among them; null when there are none. */
  lowestPrice: number | null;
  createdAt: Date;
  updatedAt: Date;
}

interface LineRow {
  id: string;
  item_urn: string | null;
  game_urn: string | null;
  card_name: string | null;
  quantity: number;
  min_condition: Condition | null;
  languages: string[] | null;
  variants: WantedVariant[] | null;
  max_price: number | null;
  created_at: Date;
  updated_at: Date;
  available: number;
  lowest_price: number | null;
}

/**
 * Reads lines with their availability in one statement. `lines` is a query over `wants_lines`
 * (every column) choosing the lines, e.g. one page of a list; each of them then costs one probe
 * of `listings (item_urn)` per item it names (`fittingListingsSql`), never a scan of the market.
 * Answered oldest first, as lists show their lines.
 */
export async function readLines(db: DataSource | EntityManager, lines: string, params: unknown[]): Promise<WantsLine[]> {
  const rows: LineRow[] = await db.query(
    `WITH chosen AS MATERIALIZED (${lines})
     SELECT c.id, c.item_urn, c.game_urn, c.card_name, c.quantity, c.min_condition, c.languages, c.variants, c.max_price,
            c.created_at, c.updated_at, coalesce(a.available, 0)::int AS available, a.lowest_price
       FROM chosen c
       LEFT JOIN (SELECT f.line_id,
                         sum(f.available) FILTER (WHERE f.within_max_price) AS available,
                         min(f.price) FILTER (WHERE f.within_max_price) AS lowest_price
                    FROM (${fittingListingsSql('chosen')}) f
                   GROUP BY f.line_id) a ON a.line_id = c.id
      ORDER BY c.created_at, c.id`,
    params,
  );
  return rows.map(toLine);
}

function toLine(r: LineRow): WantsLine {
  return {
    id: r.id,
    urn: r.item_urn,
    card: r.game_urn !== null && r.card_name !== null ? { game: r.game_urn, name: r.card_name } : null,
    quantity: r.quantity,
    minCondition: r.min_condition,
    languages: r.languages,
    variants: r.variants,
    maxPrice: r.max_price,
    available: r.available,
    lowestPrice: r.lowest_price,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
