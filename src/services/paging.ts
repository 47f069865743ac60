/** A validated page request of the spec's list routes (page ≥ 1, size 1–50). */
export interface PageRequest {
  page: number;
  size: number;
  sort: 'createdAt' | 'updatedAt';
  direction: 'asc' | 'desc';
}

/**
 * The two list envelopes of every paged list whose shape the spec does not fix
 * (docs/conventions.md, "Lists"): offset pages and, for streams read newest-first, cursor pages.
 */
export interface Page<T> {
  items: T[];
  /** How many the whole list holds (with the same filters), across every page. */
  total: number;
  page: number;
  size: number;
}

export interface CursorPage<T> {
  items: T[];
  /** The `cursor` of the next page; null on the last one. */
  nextCursor: string | null;
}

/** One offset page: the page's items, the list's total and the page asked for. */
export const pageOf = <T>(items: T[], total: number, q: { page: number; size: number }): Page<T> => ({
  items,
  total,
  page: q.page,
  size: q.size,
});
