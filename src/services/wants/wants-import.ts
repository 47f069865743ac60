import type { DataSource } from 'typeorm';
import { invalid } from '../errors';
import { CatalogRefs, nameKey } from './catalog-refs';
import { parseDeckList } from './deck-list';
import { readLines, type WantsLine } from './line-availability';
import { parseLineInput, type WantsLineInput } from './line-input';
import { readWantsCsv } from './wants-csv';
import { toStored, type StoredLine, type WantsLists } from './wants-lists';

export interface WantsImportRequest {
  format: 'decklist' | 'csv';
  text: string;
  /** The game of a deck list's cards; by default the catalog's only game. */
  game?: string;
}

/** A line of the text that became no wants line, and why (for a person to fix it). */
export interface Unresolved {
  lineNumber: number;
  text: string;
  reason: string;
}

export interface WantsImportResult {
  imported: number;
  lines: WantsLine[];
  unresolved: Unresolved[];
}

/** A line of the text on its way to a wants line: its input once read, or what it still needs (a deck list's set). */
interface Candidate {
  lineNumber: number;
  text: string;
  input: WantsLineInput | null;
  /** A deck-list card in brackets: resolved to that set's printing. */
  printing?: { game: string; set: string; name: string; quantity: number };
  reason: string | null;
}

/**
 * Imports a deck list or a CSV into one of the user's lists (docs/wants.md, "Import"). Every
 * line is read and resolved against the catalog in a few queries for the whole text; the
 * resolved lines are then appended in one transaction, all or none (the list's 1,000-line limit),
 * and the others are reported by line number with the reason.
 */
export class WantsImports {
  constructor(
    private readonly db: DataSource,
    private readonly lists: WantsLists,
  ) {}

  async import(userId: string, listId: string, request: WantsImportRequest): Promise<WantsImportResult> {
    await this.lists.get(userId, listId);
    const candidates = request.format === 'csv' ? this.fromCsv(request.text) : await this.fromDeckList(request.text, request.game);
    await this.resolvePrintings(candidates);
    const refs = await CatalogRefs.load(this.db, {
      urns: candidates.flatMap((c) => (c.input?.urn ? [c.input.urn] : [])),
      cards: candidates.flatMap((c) => (c.input?.card ? [c.input.card] : [])),
    });
    const resolved: StoredLine[] = [];
    const unresolved: Unresolved[] = [];
    for (const c of candidates) {
      const problem = c.reason ?? (c.input ? refs.problem(c.input)?.message : null) ?? null;
      if (problem !== null || !c.input) unresolved.push({ lineNumber: c.lineNumber, text: c.text, reason: problem ?? 'not a card' });
      else resolved.push(toStored(c.input, refs));
    }
    const ids = await this.lists.append(userId, listId, resolved);
    const lines = ids.length ? await readLines(this.db, `SELECT * FROM wants_lines WHERE id = ANY($1::uuid[])`, [ids]) : [];
    return { imported: ids.length, lines, unresolved };
  }

  private fromCsv(text: string): Candidate[] {
    return readWantsCsv(text).map((row) => {
      if (row.error !== null) return { lineNumber: row.lineNumber, text: row.text, input: null, reason: row.error };
      const parsed = parseLineInput(row.input);
      return { lineNumber: row.lineNumber, text: row.text, input: parsed.value, reason: parsed.error };
    });
  }

  private async fromDeckList(text: string, game: string | undefined): Promise<Candidate[]> {
    const entries = parseDeckList(text);
    const gameUrn = await this.deckListGame(game);
    return entries.map((e): Candidate => {
      const at = { lineNumber: e.lineNumber, text: e.text };
      if (e.error !== null) return { ...at, input: null, reason: e.error };
      if (e.set !== null)
        return { ...at, input: null, printing: { game: gameUrn, set: e.set, name: e.name, quantity: e.quantity }, reason: null };
      return { ...at, input: { card: { game: gameUrn, name: e.name }, quantity: e.quantity }, reason: null };
    });
  }

  /** The game a deck list's names are looked up in: the one asked for, or the catalog's only one. */
  private async deckListGame(game: string | undefined): Promise<string> {
    if (game !== undefined) {
      const [known] = await this.db.query(`SELECT 1 FROM catalog_games WHERE urn = $1`, [game]);
      if (!known) {
        throw invalid('wants-card-unknown', `There is no game "${game}".`, [
          { in: 'body', field: 'game', message: `"game": there is no game "${game}"` },
        ]);
      }
      return game;
    }
    const games: Array<{ urn: string }> = await this.db.query(`SELECT urn FROM catalog_games ORDER BY urn LIMIT 2`);
    if (games.length !== 1) {
      throw invalid('validation-failed', 'Say which game the deck list is of.', [
        {
          in: 'body',
          field: 'game',
          message: `"game" is required for a deck list: the catalog has ${games.length ? 'several games' : 'no game'}`,
        },
      ]);
    }
    return games[0]!.urn;
  }

  /**
   * `2 Pikachu [Jungle]`: the item named so in the set named so (both case-blind) in the game,
   * found in one query for every such line of the text.
   */
  private async resolvePrintings(candidates: Candidate[]): Promise<void> {
    const wanted = candidates.filter((c) => c.printing);
    if (!wanted.length) return;
    const game = wanted[0]!.printing!.game;
    const rows: Array<{ set: string; name: string; sets: number; urns: string[] }> = await this.db.query(
      `SELECT w.set, w.name,
              (SELECT count(*)::int FROM catalog_sets s WHERE s.game_urn = $1 AND lower(s.name) = w.set) AS sets,
              ARRAY(SELECT ci.urn FROM catalog_items ci JOIN catalog_sets s ON s.urn = ci.set_urn
                     WHERE ci.game_urn = $1 AND lower(ci.name) = w.name AND lower(s.name) = w.set ORDER BY ci.urn) AS urns
         FROM (SELECT DISTINCT set, name FROM unnest($2::text[], $3::text[]) AS w(set, name)) w`,
      [game, wanted.map((c) => c.printing!.set.toLowerCase()), wanted.map((c) => c.printing!.name.toLowerCase())],
    );
    const found = new Map(rows.map((r) => [nameKey(r.set, r.name), r]));
    for (const c of wanted) {
      const { set, name, quantity } = c.printing!;
      const row = found.get(nameKey(set.toLowerCase(), name))!;
      if (row.sets === 0) c.reason = `no set named "${set}" in game "${game}"`;
      else if (row.urns.length === 0) c.reason = `set "${set}" has no card named "${name}"`;
      else if (row.urns.length > 1)
        c.reason = `set "${set}" has ${row.urns.length} cards named "${name}" (${row.urns.join(', ')}); import a CSV line naming one by urn`;
      else c.input = { urn: row.urns[0]!, quantity };
    }
  }
}
