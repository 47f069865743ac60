import type { DataSource } from 'typeorm';
import { loadItems, type ItemView } from '../catalog/item-view';

export interface BulkLookup {
  /** Found items, in the order first asked for; a URN asked for twice is answered once. */
  items: ItemView[];
  /** URNs not in the catalog, in request order, each once. */
  unprocessed: string[];
}

/** Items for up to 200 URNs in one database round trip (the shared item view is one query). */
export async function lookupItems(db: DataSource, urns: string[]): Promise<BulkLookup> {
  const unique = [...new Set(urns)];
  const found = await loadItems(db, unique);
  return {
    items: unique.map((urn) => found.get(urn)).filter((i): i is ItemView => i !== undefined),
    unprocessed: unique.filter((urn) => !found.has(urn)),
  };
}
