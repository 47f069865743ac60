import type { DataSource, EntityManager } from 'typeorm';

type Db = DataSource | EntityManager;

/** A key for a (scope, name) pair compared case-blind, as `lower()` in SQL compares. */
export const nameKey = (scope: string, name: string) => `${scope}\u0000${name.toLowerCase()}`;

/**
 * What a batch of lines names in the catalog, looked up in one query per kind whatever the
 * number of lines (an import resolves up to 1,000 at once): which items and games exist, and
 * the catalog's spelling of each card name (game, lower(name)) through `catalog_items (game_urn, lower(name))`.
 */
export class CatalogRefs {
  private constructor(
    readonly items: Set<string>,
    readonly games: Set<string>,
    /** nameKey(game, name) → the catalog's spelling of the name. */
    readonly cardNames: Map<string, string>,
  ) {}

  static async load(db: Db, refs: { urns: string[]; cards: Array<{ game: string; name: string }> }): Promise<CatalogRefs> {
    const urns = [...new Set(refs.urns)];
    const games = [...new Set(refs.cards.map((c) => c.game))];
    const [items, knownGames, names] = await Promise.all([
      urns.length ? db.query(`SELECT urn FROM catalog_items WHERE urn = ANY($1)`, [urns]) : [],
      games.length ? db.query(`SELECT urn FROM catalog_games WHERE urn = ANY($1)`, [games]) : [],
      refs.cards.length
        ? db.query(
            `SELECT w.game, w.name, (SELECT min(ci.name) FROM catalog_items ci WHERE ci.game_urn = w.game AND lower(ci.name) = w.name) AS spelling
               FROM (SELECT DISTINCT game, name FROM unnest($1::text[], $2::text[]) AS w(game, name)) w`,
            [refs.cards.map((c) => c.game), refs.cards.map((c) => c.name.toLowerCase())],
          )
        : [],
    ]);
    const spellings = new Map<string, string>();
    for (const row of names as Array<{ game: string; name: string; spelling: string | null }>) {
      if (row.spelling !== null) spellings.set(nameKey(row.game, row.name), row.spelling);
    }
    return new CatalogRefs(
      new Set((items as Array<{ urn: string }>).map((r) => r.urn)),
      new Set((knownGames as Array<{ urn: string }>).map((r) => r.urn)),
      spellings,
    );
  }

  /** Why a line names nothing in the catalog, as a field and a sentence; null when it names something. */
  problem(line: { urn?: string; card?: { game: string; name: string } }): { field: string; message: string } | null {
    if (line.urn !== undefined) {
      return this.items.has(line.urn) ? null : { field: 'urn', message: `no catalog item has the urn "${line.urn}"` };
    }
    const { game, name } = line.card!;
    if (!this.games.has(game)) return { field: 'card.game', message: `there is no game "${game}"` };
    if (!this.cardNames.has(nameKey(game, name))) return { field: 'card.name', message: `no card named "${name}" in game "${game}"` };
    return null;
  }

  /** The catalog's spelling of a card name the batch resolved. */
  spelling(card: { game: string; name: string }): string {
    return this.cardNames.get(nameKey(card.game, card.name)) ?? card.name;
  }
}
