import type { DataSource } from 'typeorm';
import { newId } from '../../ids';
import { conflict, notFound } from '../errors';
import type { CatalogQuery, CatalogSearch } from '../search/catalog-search';
import type { ListingQuery } from '../search/listing-query';
import type { ListingSearch } from '../search/listing-search';

/** How many searches a user saves (docs/alerts.md). */
export const MAX_SAVED_SEARCHES = 50;

/** What a client sends: a name and exactly one search, with the parameters its route takes. */
export interface SavedSearchInput {
  name: string;
  catalog?: CatalogQuery;
  listings?: ListingQuery;
}

export interface SavedSearchView {
  id: string;
  name: string;
  catalog: CatalogQuery | null;
  listings: ListingQuery | null;
  createdAt: Date;
}

const COLUMNS = `id, name, CASE WHEN kind = 'catalog' THEN criteria END AS catalog,
  CASE WHEN kind = 'listings' THEN criteria END AS listings, created_at AS "createdAt"`;

/**
 * Saved searches: the criteria of `GET /search` or `POST /listings/item` under a name, as those
 * routes validated them (defaults filled), so running one is exactly that search now. Ownership
 * is part of every statement: another user's search is not found.
 */
export class SavedSearches {
  constructor(
    private readonly db: DataSource,
    private readonly searches: { catalog: CatalogSearch; listings: ListingSearch },
  ) {}

  /** The caller's saved searches, oldest first: at most 50, so one answer holds them all. */
  list(userId: string): Promise<SavedSearchView[]> {
    return this.db.query(`SELECT ${COLUMNS} FROM saved_searches WHERE user_id = $1 ORDER BY id`, [userId]);
  }

  async get(userId: string, id: string): Promise<SavedSearchView> {
    const [row]: SavedSearchView[] = await this.db.query(`SELECT ${COLUMNS} FROM saved_searches WHERE id = $1 AND user_id = $2`, [
      id,
      userId,
    ]);
    if (!row) throw notFound('Saved search');
    return row;
  }

  /** Saves a search; the user row is locked first so that the limit holds under concurrent saves. */
  async create(userId: string, input: SavedSearchInput): Promise<SavedSearchView> {
    const id = newId();
    await this.db.transaction(async (tx) => {
      await tx.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
      const [{ count }]: [{ count: number }] = await tx.query(`SELECT count(*)::int AS count FROM saved_searches WHERE user_id = $1`, [
        userId,
      ]);
      if (count >= MAX_SAVED_SEARCHES) {
        throw conflict('saved-search-limit-reached', `A user keeps at most ${MAX_SAVED_SEARCHES} saved searches; delete one first.`);
      }
      const [kind, criteria] = input.catalog ? ['catalog', input.catalog] : ['listings', input.listings];
      await tx.query(`INSERT INTO saved_searches (id, user_id, name, kind, criteria) VALUES ($1, $2, $3, $4, $5)`, [
        id,
        userId,
        input.name,
        kind,
        JSON.stringify(criteria),
      ]);
    });
    return this.get(userId, id);
  }

  async remove(userId: string, id: string): Promise<void> {
    const [, affected]: [unknown, number] = await this.db.query(`DELETE FROM saved_searches WHERE id = $1 AND user_id = $2`, [id, userId]);
    if (!affected) throw notFound('Saved search');
  }

  /** Runs a saved search now: the answer of the search it saved, as that route gives it (JSON bytes in pieces). */
  async run(userId: string, id: string): Promise<Buffer[]> {
    const saved = await this.get(userId, id);
    return saved.catalog ? this.searches.catalog.search(saved.catalog) : this.searches.listings.search(saved.listings!);
  }
}
