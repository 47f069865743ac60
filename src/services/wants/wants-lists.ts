import type { DataSource, EntityManager } from 'typeorm';
import { newId } from '../../ids';
import { uniqueViolation } from '../db-errors';
import { conflict, invalid, notFound } from '../errors';
import { pageOf, type Page } from '../paging';
import { CatalogRefs } from './catalog-refs';
import { readLines, type WantsLine } from './line-availability';
import { MAX_WANTS_LINES, MAX_WANTS_LISTS, type Condition, type WantedVariant, type WantsLineInput } from './line-input';

export interface WantsList {
  id: string;
  name: string;
  lineCount: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A page asked for; answered in the offset envelope (`Page`, `{items, total, page, size}`). */
export interface Paged {
  page: number;
  size: number;
}

/** A line as stored: one item, or a card name (the catalog's spelling) within a game. */
export interface StoredLine {
  itemUrn: string | null;
  gameUrn: string | null;
  cardName: string | null;
  quantity: number;
  minCondition: Condition | null;
  languages: string[] | null;
  variants: WantedVariant[] | null;
  maxPrice: number | null;
}

const LIST_COLUMNS = `l.id, l.name, (SELECT count(*)::int FROM wants_lines wl WHERE wl.list_id = l.id) AS "lineCount",
  l.created_at AS "createdAt", l.updated_at AS "updatedAt"`;

const NAME_INDEX = 'wants_lists_user_name_idx';

const nameTaken = (name: string) => conflict('wants-list-name-taken', `You already have a wants list named "${name}".`);

/**
 * Wants lists and their lines (docs/wants.md). Ownership is part of every statement: a list or
 * line of another user is not found. Writes that count (lists per user, lines per list) lock the
 * row that owns the count first (the user, the list), so the limits hold under concurrency.
 */
export class WantsLists {
  constructor(private readonly db: DataSource) {}

  async list(userId: string, { page, size }: Paged): Promise<Page<WantsList>> {
    const [lists, [{ total }]]: [WantsList[], [{ total: number }]] = await Promise.all([
      this.db.query(`SELECT ${LIST_COLUMNS} FROM wants_lists l WHERE l.user_id = $1 ORDER BY l.created_at, l.id LIMIT $2 OFFSET $3`, [
        userId,
        size,
        (page - 1) * size,
      ]),
      this.db.query(`SELECT count(*)::int AS total FROM wants_lists WHERE user_id = $1`, [userId]),
    ]);
    return pageOf(lists, total, { page, size });
  }

  async get(userId: string, id: string, db: DataSource | EntityManager = this.db): Promise<WantsList> {
    const [row]: WantsList[] = await db.query(`SELECT ${LIST_COLUMNS} FROM wants_lists l WHERE l.id = $1 AND l.user_id = $2`, [id, userId]);
    if (!row) throw notFound('Wants list');
    return row;
  }

  async create(userId: string, name: string): Promise<WantsList> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
      const [{ count, taken }]: [{ count: number; taken: boolean }] = await tx.query(
        `SELECT count(*)::int AS count, coalesce(bool_or(name = $2), false) AS taken FROM wants_lists WHERE user_id = $1`,
        [userId, name],
      );
      if (count >= MAX_WANTS_LISTS) {
        throw conflict('wants-list-limit-reached', `A user keeps at most ${MAX_WANTS_LISTS} wants lists; delete one first.`);
      }
      if (taken) throw nameTaken(name);
      const id = newId();
      await this.writeName(tx, name, `INSERT INTO wants_lists (id, user_id, name) VALUES ($1, $2, $3)`, [id, userId, name]);
      return this.get(userId, id, tx);
    });
  }

  async rename(userId: string, id: string, name: string): Promise<WantsList> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
      const current = await this.get(userId, id, tx);
      if (current.name === name) return current;
      const [other] = await tx.query(`SELECT 1 FROM wants_lists WHERE user_id = $1 AND name = $2`, [userId, name]);
      if (other) throw nameTaken(name);
      await this.writeName(tx, name, `UPDATE wants_lists SET name = $3, updated_at = now() WHERE id = $1 AND user_id = $2`, [
        id,
        userId,
        name,
      ]);
      return this.get(userId, id, tx);
    });
  }

  async remove(userId: string, id: string): Promise<void> {
    const [, affected]: [unknown, number] = await this.db.query(`DELETE FROM wants_lists WHERE id = $1 AND user_id = $2`, [id, userId]);
    if (!affected) throw notFound('Wants list');
  }

  /** One page of a list's lines, oldest first, each with its availability: one statement for the page. */
  async lines(userId: string, listId: string, { page, size }: Paged): Promise<Page<WantsLine>> {
    const list = await this.get(userId, listId);
    const lines = await readLines(this.db, `SELECT * FROM wants_lines WHERE list_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3`, [
      list.id,
      size,
      (page - 1) * size,
    ]);
    return pageOf(lines, list.lineCount, { page, size });
  }

  async line(userId: string, listId: string, lineId: string, db: DataSource | EntityManager = this.db): Promise<WantsLine> {
    const [line] = await readLines(
      db,
      `SELECT wl.* FROM wants_lines wl JOIN wants_lists l ON l.id = wl.list_id WHERE wl.id = $1 AND wl.list_id = $2 AND l.user_id = $3`,
      [lineId, listId, userId],
    );
    if (!line) throw notFound('Wants line');
    return line;
  }

  async addLine(userId: string, listId: string, input: WantsLineInput): Promise<WantsLine> {
    const refs = await CatalogRefs.load(this.db, { urns: input.urn ? [input.urn] : [], cards: input.card ? [input.card] : [] });
    refuseUnknown(refs, input);
    const [id] = await this.append(userId, listId, [toStored(input, refs)]);
    return this.line(userId, listId, id!);
  }

  /**
   * Appends resolved lines to one of the user's lists in one transaction, in the order given;
   * none when the list would exceed its limit. Answers the new lines' ids.
   */
  async append(userId: string, listId: string, lines: StoredLine[]): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      const count = await this.lockList(tx, userId, listId);
      if (count + lines.length > MAX_WANTS_LINES) {
        throw conflict(
          'wants-line-limit-reached',
          `A wants list holds at most ${MAX_WANTS_LINES} lines; this one has ${count}` +
            (lines.length > 1 ? ` and ${lines.length} more were asked for: nothing was added.` : '.'),
        );
      }
      const ids = lines.map(() => newId());
      if (lines.length === 0) return ids;
      // One statement for the batch; created_at steps a microsecond per line so the list keeps the order given.
      await tx.query(
        `INSERT INTO wants_lines (id, list_id, item_urn, game_urn, card_name, quantity, min_condition, languages, variants, max_price, created_at, updated_at)
         SELECT r.id, $1, r.item_urn, r.game_urn, r.card_name, r.quantity, r.min_condition, r.languages, r.variants, r.max_price,
                now() + r.n * interval '1 microsecond', now() + r.n * interval '1 microsecond'
           FROM jsonb_to_recordset($2::jsonb) AS r(id uuid, item_urn text, game_urn text, card_name text, quantity int,
                min_condition text, languages text[], variants jsonb, max_price int, n int)`,
        [listId, JSON.stringify(lines.map((l, i) => ({ id: ids[i], n: i, ...rowOf(l) })))],
      );
      await tx.query(`UPDATE wants_lists SET updated_at = now() WHERE id = $1`, [listId]);
      return ids;
    });
  }

  async updateLine(userId: string, listId: string, lineId: string, patch: Partial<WantsLineInput>): Promise<WantsLine> {
    const refs = await CatalogRefs.load(this.db, { urns: patch.urn ? [patch.urn] : [], cards: patch.card ? [patch.card] : [] });
    refuseUnknown(refs, patch);
    return this.db.transaction(async (tx) => {
      await this.lockList(tx, userId, listId);
      const current = await this.line(userId, listId, lineId, tx);
      const target = patch.urn !== undefined ? { urn: patch.urn } : patch.card !== undefined ? { card: patch.card } : null;
      const next = toStored(
        {
          ...(target ?? (current.urn !== null ? { urn: current.urn } : { card: current.card! })),
          quantity: patch.quantity ?? current.quantity,
          minCondition: patch.minCondition !== undefined ? patch.minCondition : current.minCondition,
          languages: patch.languages !== undefined ? patch.languages : current.languages,
          variants: patch.variants !== undefined ? patch.variants : current.variants,
          maxPrice: patch.maxPrice !== undefined ? patch.maxPrice : current.maxPrice,
        },
        refs,
      );
      const row = rowOf(next);
      await tx.query(
        `UPDATE wants_lines SET item_urn = $2, game_urn = $3, card_name = $4, quantity = $5, min_condition = $6, languages = $7,
                variants = $8::jsonb, max_price = $9, updated_at = now()
          WHERE id = $1`,
        [
          lineId,
          row.item_urn,
          row.game_urn,
          row.card_name,
          row.quantity,
          row.min_condition,
          row.languages,
          row.variants === null ? null : JSON.stringify(row.variants),
          row.max_price,
        ],
      );
      await tx.query(`UPDATE wants_lists SET updated_at = now() WHERE id = $1`, [listId]);
      return this.line(userId, listId, lineId, tx);
    });
  }

  async removeLine(userId: string, listId: string, lineId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await this.lockList(tx, userId, listId);
      const [, affected]: [unknown, number] = await tx.query(`DELETE FROM wants_lines WHERE id = $1 AND list_id = $2`, [lineId, listId]);
      if (!affected) throw notFound('Wants line');
      await tx.query(`UPDATE wants_lists SET updated_at = now() WHERE id = $1`, [listId]);
    });
  }

  /** Every line of one of the user's lists as stored, oldest first (the export). */
  async storedLines(userId: string, listId: string): Promise<StoredLine[]> {
    await this.get(userId, listId);
    return this.db.query(
      `SELECT item_urn AS "itemUrn", game_urn AS "gameUrn", card_name AS "cardName", quantity, min_condition AS "minCondition",
              languages, variants, max_price AS "maxPrice"
         FROM wants_lines WHERE list_id = $1 ORDER BY created_at, id`,
      [listId],
    );
  }

  /** Locks one of the user's lists (404 otherwise) and answers how many lines it has. */
  private async lockList(tx: EntityManager, userId: string, listId: string): Promise<number> {
    const [row]: Array<{ count: number }> = await tx.query(
      `SELECT (SELECT count(*)::int FROM wants_lines WHERE list_id = l.id) AS count
         FROM wants_lists l WHERE l.id = $1 AND l.user_id = $2 FOR UPDATE`,
      [listId, userId],
    );
    if (!row) throw notFound('Wants list');
    return row.count;
  }

  private async writeName(tx: EntityManager, name: string, sql: string, params: unknown[]): Promise<void> {
    try {
      await tx.query(sql, params);
    } catch (err) {
      if (uniqueViolation(err) === NAME_INDEX) throw nameTaken(name);
      throw err;
    }
  }
}

/** A line's stored form; `refs` gives the catalog's spelling of a card name. */
export function toStored(input: WantsLineInput, refs: CatalogRefs): StoredLine {
  return {
    itemUrn: input.urn ?? null,
    gameUrn: input.card ? input.card.game : null,
    cardName: input.card ? refs.spelling(input.card) : null,
    quantity: input.quantity,
    minCondition: input.minCondition ?? null,
    languages: input.languages ?? null,
    variants: input.variants ?? null,
    maxPrice: input.maxPrice ?? null,
  };
}

function rowOf(l: StoredLine) {
  return {
    item_urn: l.itemUrn,
    game_urn: l.gameUrn,
    card_name: l.cardName,
    quantity: l.quantity,
    min_condition: l.minCondition,
    languages: l.languages,
    variants: l.variants,
    max_price: l.maxPrice,
  };
}

/** Refuses a line (or a price alert: `what`) naming an item or card the catalog does not have. */
export function refuseUnknown(refs: CatalogRefs, line: { urn?: string; card?: { game: string; name: string } }, what = 'line'): void {
  if (line.urn === undefined && line.card === undefined) return;
  const problem = refs.problem(line);
  if (problem) {
    throw invalid('wants-card-unknown', `The ${what} names nothing in the catalog: ${problem.message}.`, [
      { in: 'body', field: problem.field, message: `"${problem.field}": ${problem.message}` },
    ]);
  }
}
