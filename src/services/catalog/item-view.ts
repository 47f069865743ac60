import type { DataSource, EntityManager } from 'typeorm';
import type { ItemImage, ItemMetadata } from '../../db/entities';
import { prepared, queryPrepared } from '../../db/prepared';

/** The spec's Item resource. Prices are pence; price fields are null when nothing is for sale. */
export interface ItemView {
  urn: string;
  slug: string;
  type: string;
  game: string;
  title: string;
  name: string;
  rarity: string;
  number: string;
  description: string;
  set: {
    name: string;
    urn: string;
    counts: { printed: number | null; total: number | null };
    references: string[];
    size: number | null;
    symbol: { url: string | null };
    released: string | null;
  };
  series: { name: string; urn: string };
  images: ItemImage[];
  alternatives: string[];
  metadata: ItemMetadata[];
  /** Lowest price among live listings. */
  price: number | null;
  /** Units buyers can buy now (stock not held by open checkouts). */
  available: number;
  /** Units listed, including those held by open checkouts. */
  quantity: number;
  min: { price: number | null };
  max: { price: number | null };
}

interface ItemRow {
  urn: string;
  slug: string;
  type: string;
  title: string;
  name: string;
  rarity: string;
  number: string;
  description: string;
  images: ItemImage[];
  alternatives: string[];
  metadata: ItemMetadata[];
  game_name: string;
  set_urn: string;
  set_name: string;
  printed_count: number | null;
  total_count: number | null;
  references: string[];
  size: number | null;
  symbol_url: string | null;
  released: string | null;
  series_urn: string;
  series_name: string;
  min_price: number | null;
  max_price: number | null;
  available: number | null;
  quantity: number | null;
}

/**
 * Items with their set, series, game and market data, in one round trip. The market data is
 * `item_market`, which the database keeps equal to the live-listing aggregates in the
 * transaction of every listing write (migration 1733443700000); an item with nothing for sale
 * has no row there.
 */
const ITEMS = prepared(
  'catalog-items',
  `
  SELECT i.urn, i.slug, i.type, i.title, i.name, i.rarity, i.number, i.description,
         i.images, i.alternatives, i.metadata, g.name AS game_name,
         s.urn AS set_urn, s.name AS set_name, s.printed_count, s.total_count, s."references", s.size,
         s.symbol_url, s.released, sr.urn AS series_urn, sr.name AS series_name,
         m.min_price, m.max_price, m.available, m.quantity
    FROM catalog_items i
    JOIN catalog_sets s ON s.urn = i.set_urn
    JOIN catalog_series sr ON sr.urn = i.series_urn
    JOIN catalog_games g ON g.urn = i.game_urn
    LEFT JOIN item_market m ON m.item_urn = i.urn
   WHERE i.urn = ANY($1::text[])`,
);

function toItemView(r: ItemRow): ItemView {
  return {
    urn: r.urn,
    slug: r.slug,
    type: r.type,
    game: r.game_name,
    title: r.title,
    name: r.name,
    rarity: r.rarity,
    number: r.number,
    description: r.description,
    set: {
      name: r.set_name,
      urn: r.set_urn,
      counts: { printed: r.printed_count, total: r.total_count },
      references: r.references,
      size: r.size,
      symbol: { url: r.symbol_url },
      released: r.released,
    },
    series: { name: r.series_name, urn: r.series_urn },
    images: r.images,
    alternatives: r.alternatives,
    metadata: r.metadata,
    price: r.min_price,
    available: r.available ?? 0,
    quantity: r.quantity ?? 0,
    min: { price: r.min_price },
    max: { price: r.max_price },
  };
}

/** Items by URN, keyed by URN; URNs not in the catalog are simply absent. */
export async function loadItems(db: DataSource | EntityManager, urns: string[]): Promise<Map<string, ItemView>> {
  const unique = [...new Set(urns)];
  if (unique.length === 0) return new Map();
  const rows = await queryPrepared<ItemRow>(db, ITEMS, [unique]);
  return new Map(rows.map((r) => [r.urn, toItemView(r)]));
}
