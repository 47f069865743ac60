import type { JsonCache } from './json-cache';
import type { ItemView } from '../catalog/item-view';

const [OPEN, COMMA, CLOSE, EMPTY] = ['[', ',', ']', '[]'].map((s) => Buffer.from(s)) as [Buffer, Buffer, Buffer, Buffer];

export interface BulkLookupResult {
  /**
   * The spec's array<Item> as JSON bytes (`toJsonBytes`) in pieces, to be sent one after another:
   * found items in the order first asked for, between brackets and commas. The router joins them
   * into a reused buffer (`JsonBytes`).
   */
  json: Buffer[];
  /** URNs not in the catalog, in request order, each once. */
  unprocessed: string[];
}

/**
 * `POST /search/lookup/bulk`: up to 200 URNs, answered from serialized items kept until they
 * change (see `JsonCache`), with everything missing read in one database round trip.
 * Checkout re-checks price and stock against the live rows.
 */
export class BulkLookup {
  constructor(private readonly items: JsonCache<ItemView>) {}

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
    return { json: items, unprocessed };
  }
}
