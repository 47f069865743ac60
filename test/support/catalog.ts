import { createReadStream } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import type { DataSource } from 'typeorm';
import { importCatalog, type ImportSummary } from '../../src/services/catalog/catalog-import';

const SEED_DIR = path.join(__dirname, '../../data/catalog');

async function* fromStrings(lines: string[]): AsyncIterable<string> {
  yield* lines;
}

/** Imports NDJSON lines given in the test itself. */
export const importLines = (db: DataSource, lines: string[], batchSize?: number): Promise<ImportSummary> =>
  importCatalog(db, fromStrings(lines), { batchSize });

/** Imports the project's demo seed (the real 644-card catalog and its 173 sets). */
export async function importSeed(db: DataSource): Promise<void> {
  for (const file of ['items.ndjson', 'sets.ndjson']) {
    const lines = readline.createInterface({ input: createReadStream(path.join(SEED_DIR, file)), crlfDelay: Infinity });
    const summary = await importCatalog(db, lines);
    if (summary.skipped.length) throw new Error(`seed ${file} has bad lines: ${JSON.stringify(summary.skipped)}`);
  }
}

/**
 * The rows of `catalog_search` that differ from what it mirrors (catalog_items and
 * item_market's lowest price), both ways: empty when the table is current.
 */
/** Names whose `catalog_names.items` (migration 1733700000000) differs from a count of catalog_items; [] when none. */
export function catalogNameCountDrift(db: DataSource): Promise<Array<{ name: string; items: number; counted: number }>> {
  return db.query(`
    SELECT n.name, n.items, coalesce(i.counted, 0)::int AS counted
      FROM catalog_names n FULL JOIN (SELECT name, count(*)::int AS counted FROM catalog_items GROUP BY name) i ON i.name = n.name
     WHERE n.items IS DISTINCT FROM coalesce(i.counted, 0)
     ORDER BY 1`);
}

export function catalogSearchDrift(db: DataSource): Promise<Array<{ urn: string }>> {
  const mirrored = `SELECT i.urn, i.name, i.search_vector, i.game_urn, i.series_urn, i.set_urn, lower(i.rarity) AS rarity_key, m.min_price
                      FROM catalog_items i LEFT JOIN item_market m ON m.item_urn = i.urn`;
  const stored = `SELECT urn, name, search_vector, game_urn, series_urn, set_urn, rarity_key, min_price FROM catalog_search`;
  return db.query(`SELECT urn FROM ((${mirrored} EXCEPT ${stored}) UNION (${stored} EXCEPT ${mirrored})) d ORDER BY urn`);
}
