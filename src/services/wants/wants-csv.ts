import { parse } from 'csv-parse/sync';
import { invalid } from '../errors';
import type { StoredLine } from './wants-lists';

/** The columns of a wants list CSV, as the export writes them; an import takes any of them in any order, `quantity` required. */
export const WANTS_CSV_COLUMNS = ['urn', 'game', 'name', 'quantity', 'minCondition', 'languages', 'variants', 'maxPrice'] as const;

type Column = (typeof WANTS_CSV_COLUMNS)[number];

/** One data row: its cells by column, or why it cannot be a line (the line input's rules are checked later). */
export interface CsvRow {
  lineNumber: number;
  text: string;
  input: Record<string, unknown> | null;
  error: string | null;
}

/** A spreadsheet runs a cell starting with one of these as a formula: the export writes them after a `'`. */
const FORMULA_START = /^[=+\-@\t\r]/;

function cell(value: string | number | null): string {
  let s = value === null ? '' : String(value);
  if (FORMULA_START.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const unguard = (s: string) => (s.startsWith("'") && FORMULA_START.test(s.slice(1)) ? s.slice(1) : s);

/** The list's lines as CSV (RFC 4180, CRLF): what `readWantsCsv` reads back into the same lines. */
export function writeWantsCsv(lines: StoredLine[]): string {
  const rows = lines.map((l) => [
    l.itemUrn,
    l.gameUrn,
    l.cardName,
    l.quantity,
    l.minCondition,
    l.languages?.join(';') ?? null,
    l.variants?.map((v) => `${v.name}=${v.value}`).join(';') ?? null,
    l.maxPrice,
  ]);
  return [[...WANTS_CSV_COLUMNS], ...rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}

/**
 * Reads a wants list CSV into line inputs, one per data row, numbered by the text line the row
 * starts on (the header is line 1). A header naming an unknown column, or without `quantity`,
 * refuses the whole file; a row's own faults are reported with that row.
 */
export function readWantsCsv(text: string): CsvRow[] {
  let records: Array<{ record: string[]; info: { lines: number }; raw: string }>;
  try {
    records = parse(text, {
      bom: true,
      trim: true,
      skip_empty_lines: true,
      relax_column_count: true,
      info: true,
      raw: true,
    }) as unknown as typeof records;
  } catch (err) {
    throw invalid('validation-failed', 'The CSV cannot be read.', [{ in: 'body', field: 'text', message: (err as Error).message }]);
  }
  const [header, ...rows] = records;
  if (!header) throw invalid('import-csv-invalid', `The CSV is empty: its first line is the header (${WANTS_CSV_COLUMNS.join(',')}).`);
  const columns = header.record.map((c) => c.trim());
  // Named as the file wrote them, not trimmed: the caller finds them as they are.
  const unknown = header.record.filter((_, i) => !(WANTS_CSV_COLUMNS as readonly string[]).includes(columns[i]!));
  if (unknown.length || !columns.includes('quantity')) {
    throw invalid(
      'import-csv-invalid',
      `The CSV header must name columns among ${WANTS_CSV_COLUMNS.join(', ')}, quantity included` +
        (unknown.length ? `; unknown: ${unknown.map((c) => `"${c}"`).join(', ')}.` : '.'),
    );
  }
  return rows.map(({ record, info, raw }) => {
    const body = raw.replace(/^(?:[ \t]*\r?\n)+/, '').replace(/\r?\n$/, '');
    const lineNumber = info.lines - (body.match(/\n/g)?.length ?? 0);
    const cells = Object.fromEntries(columns.map((c, i) => [c, unguard(record[i] ?? '')])) as Partial<Record<Column, string>>;
    const at = { lineNumber, text: body.replace(/\r/g, '') };
    const variants = parseVariants(cells.variants);
    if (typeof variants === 'string') return { ...at, input: null, error: variants };
    const given = (s: string | undefined) => (s ? s : undefined);
    const input: Record<string, unknown> = {
      quantity: given(cells.quantity),
      minCondition: given(cells.minCondition),
      languages: cells.languages ? cells.languages.split(';').map((l) => l.trim()) : undefined,
      variants,
      maxPrice: given(cells.maxPrice),
    };
    if (cells.urn) {
      if (cells.game || cells.name) return { ...at, input: null, error: 'give either a urn or a game and a name, not both' };
      input.urn = cells.urn;
    } else if (cells.game || cells.name) {
      input.card = { game: given(cells.game), name: given(cells.name) };
    }
    return { ...at, input, error: null };
  });
}

function parseVariants(cell: string | undefined): Array<{ name: string; value: string }> | undefined | string {
  if (!cell) return undefined;
  const variants: Array<{ name: string; value: string }> = [];
  for (const part of cell.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 1) return `variant "${part.trim()}" is not name=value`;
    variants.push({ name: part.slice(0, eq).trim(), value: part.slice(eq + 1).trim() });
  }
  return variants;
}
