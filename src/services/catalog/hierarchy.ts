import type { DataSource } from 'typeorm';
import { notFound } from '../errors';
import { loadItems, type ItemView } from './item-view';

/** A node of the catalog tree with how much lies below it. */
export interface CatalogNode {
  urn: string;
  name: string;
  counts: { series?: number; sets?: number; items: number };
}

export interface SetNode extends CatalogNode {
  released: string | null;
  size: number | null;
  symbol: { url: string | null };
}

export interface GameLevel {
  game: CatalogNode;
  series: CatalogNode[];
}

export interface SeriesLevel {
  game: { urn: string; name: string };
  series: CatalogNode;
  sets: SetNode[];
}

export interface SetLevel {
  game: { urn: string; name: string };
  series: { urn: string; name: string };
  set: SetNode;
  items: ItemView[];
  /** The set's items (`set.counts.items`): the offset envelope's total. */
  total: number;
  page: number;
  size: number;
}

interface CountRow {
  urn: string;
  name: string;
  series?: number;
  sets?: number;
  items: number;
}
const toNode = (r: CountRow): CatalogNode => ({
  urn: r.urn,
  name: r.name,
  counts: { ...(r.series !== undefined ? { series: r.series } : {}), ...(r.sets !== undefined ? { sets: r.sets } : {}), items: r.items },
});

// Counts are correlated sub-queries over the parent-key indexes (catalog_series_game_idx,
// catalog_sets_series_idx, catalog_items_*_idx), so each level costs one query.
const GAMES_SQL = `
  SELECT g.urn, g.name,
         (SELECT count(*) FROM catalog_series s WHERE s.game_urn = g.urn)::int AS series,
         (SELECT count(*) FROM catalog_sets s WHERE s.game_urn = g.urn)::int AS sets,
         (SELECT count(*) FROM catalog_items i WHERE i.game_urn = g.urn)::int AS items
    FROM catalog_games g`;

const SERIES_SQL = `
  SELECT sr.urn, sr.name, sr.game_urn,
         (SELECT count(*) FROM catalog_sets s WHERE s.series_urn = sr.urn)::int AS sets,
         (SELECT count(*) FROM catalog_items i WHERE i.series_urn = sr.urn)::int AS items
    FROM catalog_series sr`;

const SETS_SQL = `
  SELECT s.urn, s.name, s.series_urn, s.game_urn, s.released, s.size, s.symbol_url,
         (SELECT count(*) FROM catalog_items i WHERE i.set_urn = s.urn)::int AS items
    FROM catalog_sets s`;

type SetRow = CountRow & { series_urn: string; game_urn: string; released: string | null; size: number | null; symbol_url: string | null };
const toSetNode = (r: SetRow): SetNode => ({ ...toNode(r), released: r.released, size: r.size, symbol: { url: r.symbol_url } });

export class CatalogHierarchy {
  constructor(private readonly db: DataSource) {}

  async games(): Promise<CatalogNode[]> {
    const rows: CountRow[] = await this.db.query(`${GAMES_SQL} ORDER BY g.name, g.urn`);
    return rows.map(toNode);
  }

  async game(gameUrn: string): Promise<GameLevel> {
    const [game]: CountRow[] = await this.db.query(`${GAMES_SQL} WHERE g.urn = $1`, [gameUrn]);
    if (!game) throw notFound('Game');
    const series: CountRow[] = await this.db.query(`${SERIES_SQL} WHERE sr.game_urn = $1 ORDER BY sr.name, sr.urn`, [gameUrn]);
    return { game: toNode(game), series: series.map(toNode) };
  }

  async series(seriesUrn: string): Promise<SeriesLevel> {
    const [series]: Array<CountRow & { game_urn: string }> = await this.db.query(`${SERIES_SQL} WHERE sr.urn = $1`, [seriesUrn]);
    if (!series) throw notFound('Series');
    const [game, sets]: [Array<{ urn: string; name: string }>, SetRow[]] = await Promise.all([
      this.db.query(`SELECT urn, name FROM catalog_games WHERE urn = $1`, [series.game_urn]),
      // Release order is what collectors browse by; sets without a date go last.
      this.db.query(`${SETS_SQL} WHERE s.series_urn = $1 ORDER BY s.released NULLS LAST, s.name`, [seriesUrn]),
    ]);
    return { game: game[0]!, series: toNode(series), sets: sets.map(toSetNode) };
  }

  /** A set and one page of its items, in card-number order (numeric part first: 2 before 10). */
  async set(setUrn: string, page: number, size: number): Promise<SetLevel> {
    const [set]: Array<SetRow & { game_name: string; series_name: string }> = await this.db.query(
      `SELECT x.*, g.name AS game_name, sr.name AS series_name
         FROM (${SETS_SQL} WHERE s.urn = $1) x
         JOIN catalog_series sr ON sr.urn = x.series_urn
         JOIN catalog_games g ON g.urn = x.game_urn`,
      [setUrn],
    );
    if (!set) throw notFound('Set');
    const rows: Array<{ urn: string }> = await this.db.query(
      `SELECT urn FROM catalog_items WHERE set_urn = $1
        ORDER BY substring(number from '^[0-9]+')::int NULLS LAST, number, urn LIMIT $2 OFFSET $3`,
      [setUrn, size, (page - 1) * size],
    );
    const items = await loadItems(
      this.db,
      rows.map((r) => r.urn),
    );
    const node = toSetNode(set);
    return {
      game: { urn: set.game_urn, name: set.game_name },
      series: { urn: set.series_urn, name: set.series_name },
      set: node,
      items: rows.map((r) => items.get(r.urn)).filter((i): i is ItemView => i !== undefined),
      total: node.counts.items,
      page,
      size,
    };
  }
}
