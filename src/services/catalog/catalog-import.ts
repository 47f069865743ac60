import type { DataSource, EntityManager } from 'typeorm';
import { BadLine, gameUrnOf, parseCatalogLine, type CatalogLine } from './catalog-lines';

export interface SkippedLine {
  line: number;
  reason: string;
}

export interface ImportSummary {
  lines: number;
  items: { inserted: number; updated: number; unchanged: number };
  sets: { inserted: number; updated: number; unchanged: number };
  skipped: SkippedLine[];
}

interface Numbered {
  line: number;
  parsed: CatalogLine;
}

type Counts = ImportSummary['items'];
const zero = (): Counts => ({ inserted: 0, updated: 0, unchanged: 0 });

function add(into: Counts, more: Counts): void {
  into.inserted += more.inserted;
  into.updated += more.updated;
  into.unchanged += more.unchanged;
}

/**
 * Multi-row upsert. Rows whose values did not change are left alone (no churn, so a re-import
 * is a no-op); `RETURNING (xmax = 0)` tells inserts from updates.
 */
async function upsert(
  tx: EntityManager,
  table: string,
  columns: string[],
  rows: unknown[][],
  counts?: Counts,
  onConflict: 'update' | 'keep' = 'update',
): Promise<void> {
  if (rows.length === 0) return;
  const params: unknown[] = [];
  const tuples = rows.map((row) => `(${row.map((v) => (params.push(v), `$${params.length}`)).join(', ')})`);
  const [key, ...rest] = columns;
  const quoted = rest.map((c) => `"${c}"`);
  const action =
    onConflict === 'keep'
      ? 'DO NOTHING'
      : `DO UPDATE SET (${quoted.join(', ')}, updated_at) = (${quoted.map((c) => `EXCLUDED.${c}`).join(', ')}, now())
         WHERE (${quoted.map((c) => `${table}.${c}`).join(', ')}) IS DISTINCT FROM (${quoted.map((c) => `EXCLUDED.${c}`).join(', ')})`;
  const result: Array<{ inserted: boolean }> = await tx.query(
    `INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${tuples.join(', ')}
     ON CONFLICT (${key}) ${action} RETURNING (xmax = 0) AS inserted`,
    params,
  );
  if (!counts) return;
  const inserted = result.filter((r) => r.inserted).length;
  counts.inserted += inserted;
  counts.updated += result.length - inserted;
  counts.unchanged += rows.length - result.length;
}

/** Last occurrence wins when a batch names the same key twice (one statement may not touch a row twice). */
const byKey = <T>(entries: Array<[string, T]>) => [...new Map(entries).values()];

/**
 * Writes one batch: games, series, sets, then items, so every foreign key is satisfied. Set
 * lines carry no game name; their game is created with its URN as a placeholder name that the
 * first item line of that game replaces.
 */
async function writeBatch(tx: EntityManager, batch: Numbered[]): Promise<Pick<ImportSummary, 'items' | 'sets'>> {
  const counts = { items: zero(), sets: zero() };
  const items = batch.flatMap((b) => (b.parsed.kind === 'item' ? [b.parsed.item] : []));
  const sets = batch.map((b) => (b.parsed.kind === 'item' ? { ...b.parsed.item.set, series: b.parsed.item.series } : b.parsed.set));

  const namedGames = byKey(items.map((i) => [gameUrnOf(i.urn), [gameUrnOf(i.urn), i.game]]));
  const placeholderGames = byKey(sets.map((s) => [gameUrnOf(s.urn), [gameUrnOf(s.urn), gameUrnOf(s.urn)]]));
  await upsert(tx, 'catalog_games', ['urn', 'name'], namedGames);
  await upsert(tx, 'catalog_games', ['urn', 'name'], placeholderGames, undefined, 'keep');
  await upsert(
    tx,
    'catalog_series',
    ['urn', 'game_urn', 'name'],
    byKey(sets.map((s) => [s.series.urn, [s.series.urn, gameUrnOf(s.urn), s.series.name]])),
  );
  await upsert(
    tx,
    'catalog_sets',
    ['urn', 'series_urn', 'game_urn', 'name', 'printed_count', 'total_count', 'references', 'size', 'symbol_url', 'released'],
    byKey(
      sets.map((s) => [
        s.urn,
        [s.urn, s.series.urn, gameUrnOf(s.urn), s.name, s.counts.printed, s.counts.total, s.references, s.size, s.symbol.url, s.released],
      ]),
    ),
    counts.sets,
  );
  await upsert(
    tx,
    'catalog_items',
    [
      'urn',
      'slug',
      'type',
      'game_urn',
      'series_urn',
      'set_urn',
      'title',
      'name',
      'rarity',
      'number',
      'description',
      'images',
      'alternatives',
      'metadata',
      'reference_price',
    ],
    byKey(
      items.map((i) => [
        i.urn,
        [
          i.urn,
          i.slug,
          i.type,
          gameUrnOf(i.urn),
          i.series.urn,
          i.set.urn,
          i.title,
          i.name,
          i.rarity,
          i.number,
          i.description,
          JSON.stringify(i.images),
          JSON.stringify(i.alternatives),
          JSON.stringify(i.metadata),
          i.referencePrice,
        ],
      ]),
    ),
    counts.items,
  );
  return counts;
}

export interface ImportOptions {
  batchSize?: number;
  /** Called after each batch with the number of lines read so far. */
  onProgress?: (linesRead: number) => void;
}

/**
 * Upserts a catalog from NDJSON lines (Items and set lines, mixed), idempotently. Lines are
 * validated first; a bad line is reported with its number and skipped. Each batch is one
 * transaction; if the database refuses a batch (e.g. a slug already used by another URN), its
 * lines are retried one transaction each, so only the offending lines are lost, never a half
 * line and never the good lines around it.
 */
export async function importCatalog(db: DataSource, lines: AsyncIterable<string>, options: ImportOptions = {}): Promise<ImportSummary> {
  const batchSize = options.batchSize ?? 500;
  const summary: ImportSummary = {
    lines: 0,
    items: zero(),
    sets: zero(),
    skipped: [],
  };
  let batch: Numbered[] = [];

  const flush = async () => {
    if (batch.length === 0) return;
    const current = batch;
    batch = [];
    // Counts are added only once their transaction has committed.
    const commit = async (lines: Numbered[]) => {
      const counts = await db.transaction((tx) => writeBatch(tx, lines));
      add(summary.items, counts.items);
      add(summary.sets, counts.sets);
    };
    try {
      await commit(current);
    } catch {
      for (const one of current) {
        try {
          await commit([one]);
        } catch (err) {
          summary.skipped.push({ line: one.line, reason: `rejected by the database: ${(err as Error).message}` });
        }
      }
    }
    options.onProgress?.(summary.lines);
  };

  for await (const raw of lines) {
    summary.lines += 1;
    if (raw.trim() === '') continue;
    try {
      batch.push({ line: summary.lines, parsed: parseCatalogLine(raw) });
    } catch (err) {
      if (!(err instanceof BadLine)) throw err;
      summary.skipped.push({ line: summary.lines, reason: err.message });
    }
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  summary.skipped.sort((a, b) => a.line - b.line);
  return summary;
}
