import { parse, type Options } from 'csv-parse/sync';
import type { FieldError } from '../errors';
import { parseListingInput, type ListingInput } from '../listings/listing-input';

/** CSV columns of a listing import: the JSON field names of a listing (variants excepted). */
export const IMPORT_COLUMNS = [
  'urn',
  'condition',
  'language',
  'price',
  'quantity',
  'comment',
  'gradingProvider',
  'gradingScore',
  'gradingNumber',
  'notes',
  'reference',
  'hidden',
  'offersEnabled',
  'offersAutoAcceptAt',
  'offersAutoDeclineBelow',
] as const;

/** The CSV columns of a listing's offer settings, by their field in `offers`. */
const OFFER_COLUMNS = { enabled: 'offersEnabled', autoAcceptAt: 'offersAutoAcceptAt', autoDeclineBelow: 'offersAutoDeclineBelow' } as const;
export const REQUIRED_COLUMNS = ['urn', 'condition', 'language', 'price', 'quantity'] as const;

export class CsvFormatError extends Error {}

/** One data row: its cells by column name, and how many cells it had (to catch stray ones). */
export interface CsvRecord {
  cells: Record<string, string>;
  cellCount: number;
}

/** The header of a CSV file, checked: every required column present, no unknown column. */
export function checkHeader(header: string[]): void {
  const unknown = header.filter((c) => !(IMPORT_COLUMNS as readonly string[]).includes(c));
  const missing = REQUIRED_COLUMNS.filter((c) => !header.includes(c));
  const problems = [
    ...(missing.length ? [`missing required column(s): ${missing.join(', ')}`] : []),
    ...(unknown.length ? [`unknown column(s): ${unknown.join(', ')}`] : []),
  ];
  if (problems.length) throw new CsvFormatError(`${problems.join('; ')}. Columns are: ${IMPORT_COLUMNS.join(', ')}.`);
}

/** The first line of a CSV file as column names. */
export function readHeader(csv: string): string[] {
  const [header] = parseOrThrow(csv, { to_line: 1 }) as string[][];
  if (!header) throw new CsvFormatError('The CSV file is empty.');
  return header;
}

/**
 * Whether the file has more than `max` lines after the first, not counting empty ones (which the
 * parser skips). Lines bound the records from above (a quoted cell may span lines); the count
 * stops at `max + 1`, so a huge file costs no more than an acceptable one.
 */
export function hasMoreDataLinesThan(csv: string, max: number): boolean {
  let lines = 0;
  for (let start = 0; start < csv.length && lines <= max + 1;) {
    const newline = csv.indexOf('\n', start);
    const end = newline === -1 ? csv.length : newline;
    const empty = end === start || (end === start + 1 && csv[start] === '\r');
    if (!empty) lines += 1;
    start = end + 1;
  }
  return lines - 1 > max;
}

function parseOrThrow(csv: string, options: Options): unknown[] {
  try {
    return parse(csv, { bom: true, trim: true, skip_empty_lines: true, ...options }) as unknown[];
  } catch (err) {
    throw new CsvFormatError(`The CSV file cannot be read: ${(err as Error).message}`);
  }
}

/** Data records after a checked header; a record's row number is its index + 2 (the header is row 1). */
export function readRecords(csv: string): CsvRecord[] {
  const [header, ...rows] = parseOrThrow(csv, { relax_column_count: true }) as string[][];
  if (!header) throw new CsvFormatError('The CSV file is empty.');
  checkHeader(header);
  return rows.map((row) => ({
    cells: Object.fromEntries(header.map((column, i) => [column, row[i] ?? ''])),
    cellCount: row.length,
  }));
}

/** The CSV column of an input field (`offers.enabled` → `offersEnabled`). */
function csvColumn(field: string): string {
  const [head, sub] = field.split('.');
  if (head === 'offers') return sub && sub in OFFER_COLUMNS ? OFFER_COLUMNS[sub as keyof typeof OFFER_COLUMNS] : OFFER_COLUMNS.enabled;
  return head!;
}

export const rowNumberOf = (index: number) => index + 2;

export interface RowError {
  row: number;
  column: string;
  message: string;
}

/**
 * One record as a listing input, with the same rules as the API (`listingInput`); empty cells
 * count as absent, missing trailing cells are empty, stray cells beyond the header are an
 * error (column `(row)`). Errors name the row and the column.
 */
export function recordToInput(record: CsvRecord, row: number): { input: ListingInput; errors: null } | { input: null; errors: RowError[] } {
  const columns = Object.keys(record.cells).length;
  const stray: RowError[] =
    record.cellCount > columns
      ? [{ row, column: '(row)', message: `the row has ${record.cellCount} cells but the header has ${columns} columns` }]
      : [];
  const value: Record<string, unknown> = Object.fromEntries(Object.entries(record.cells).filter(([, cell]) => cell !== ''));
  // The offer settings are three flat columns; a row that fills any of them states them all.
  const offers = Object.entries(OFFER_COLUMNS).filter(([, column]) => column in value);
  if (offers.length > 0) value.offers = Object.fromEntries(offers.map(([field, column]) => [field, value[column]]));
  for (const column of Object.values(OFFER_COLUMNS)) delete value[column];
  const parsed = parseListingInput(value, { in: 'csv', prefix: '' });
  const errors = [...stray, ...(parsed.errors ?? []).map((e: FieldError) => ({ row, column: csvColumn(e.field), message: e.message }))];
  return parsed.value && errors.length === 0 ? { input: parsed.value, errors: null } : { input: null, errors };
}
