import type { DataSource } from 'typeorm';
import { ItemJsonCache } from '../catalog/item-json-cache';
import { loadItems } from '../catalog/item-view';

const [OPEN, COMMA, CLOSE, EMPTY] = ['[', ',', ']', '[]'].map((s) => Buffer.from(s)) as [Buffer, Buffer, Buffer, Buffer];

export interface BulkLookupResult {
  /** The spec's array<Item> as JSON bytes (`toJsonBytes`): found items in the order first asked for. */
  json: Buffer;
  /** URNs not in the catalog, in request order, each once. */
  unprocessed: string[];
}

/**
 * `POST /search/lookup/bulk`: up to 200 URNs, answered from serialized items kept for a few
 * seconds (see `ItemJsonCache`), with everything missing read in one database round trip.
 * The answer is public and sent with `Cache-Control: max-age=30`, so a per-process TTL of a
 * few seconds adds no staleness the API has not already allowed any shared cache; checkout
 * re-checks price and stock against the live rows.
 */
export class BulkLookup {
  private readonly items: ItemJsonCache;

  constructor(db: DataSource, cacheTtlMs: number) {
    this.items = new ItemJsonCache((urns) => loadItems(db, urns), cacheTtlMs);
  }

  /** A URN asked for twice is answered once. */
  async lookup(urns: string[]): Promise<BulkLookupResult> {
    const unique = [...new Set(urns)];
    const found = await this.items.getMany(unique);
    const items: Buffer[] = [];
    const unprocessed: string[] = [];
    unique.forEach((urn, n) => {
      const json = found[n];
      if (json) items.push(items.length === 0 ? OPEN : COMMA, json);
      else unprocessed.push(urn);
    });
    items.push(items.length === 0 ? EMPTY : CLOSE);
    return { json: Buffer.concat(items), unprocessed };
  }
}
