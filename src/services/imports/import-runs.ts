import type { DataSource } from 'typeorm';
import { ListingImport } from '../../db/entities';
import type { ListingInput } from '../listings/listing-input';
import { insertListings } from '../listings/listing-rows';
import { CsvFormatError, readRecords, recordToInput, rowNumberOf, type CsvRecord, type RowError } from './csv-rows';

export interface ImportPlan {
  /** RUNNING: batches to do; COMPLETED or FAILED: nothing left to do (e.g. a re-run). */
  status: ListingImport['status'];
  totalRows: number;
  processedRows: number;
  batchSize: number;
}

export interface ImportSummary {
  status: ListingImport['status'];
  totalRows: number;
  createdCount: number;
  errorCount: number;
}

/**
 * Runs a seller's CSV listing import in batches (the listing-import workflow drives it): counts
 * the rows, turns each batch into listings and row errors, and finishes the import.
 */
export class ListingImportRuns {
  // The records of the import being processed: every batch of an import reads the same file,
  // so it is parsed once per worker process rather than once per batch.
  private parsed: { importId: string; records: CsvRecord[] } | null = null;

  constructor(
    private readonly db: DataSource,
    private readonly batchSize: number,
  ) {}

  /** Counts the rows and marks the import RUNNING; a finished import is left as it is. */
  async start(importId: string): Promise<ImportPlan> {
    const imports = this.db.getRepository(ListingImport);
    const plan = (i: ListingImport): ImportPlan => ({
      status: i.status,
      totalRows: i.totalRows,
      processedRows: i.processedRows,
      batchSize: this.batchSize,
    });
    const current = await imports.findOneByOrFail({ id: importId });
    if (current.status === 'COMPLETED' || current.status === 'FAILED') return plan(current);
    try {
      const records = await this.recordsOf(importId);
      await imports.update({ id: importId }, { status: 'RUNNING', totalRows: records.length });
    } catch (err) {
      if (!(err instanceof CsvFormatError)) throw err;
      // A file that cannot be read fails the import once; retrying would not change it.
      await imports.update({ id: importId }, { status: 'FAILED', failure: err.message, finishedAt: new Date() });
    }
    return plan(await imports.findOneByOrFail({ id: importId }));
  }

  /**
   * Rows [offset, offset + limit) in one transaction: valid rows become listings (with their
   * LISTING_CREATED events), invalid rows their errors. Idempotent by (import, row): a
   * retried or re-run batch inserts nothing twice and counts nothing twice.
   */
  async importBatch(importId: string, offset: number, limit: number): Promise<void> {
    const records = (await this.recordsOf(importId)).slice(offset, offset + limit);
    const valid: Array<{ input: ListingInput; importRow: number }> = [];
    const errors: RowError[] = [];
    records.forEach((record, i) => {
      const row = rowNumberOf(offset + i);
      const result = recordToInput(record, row);
      if (result.errors) errors.push(...result.errors);
      else valid.push({ input: result.input, importRow: row });
    });
    await this.db.transaction(async (tx) => {
      // One batch of an import at a time, even if a retry overlaps a slow attempt.
      const [owner] = await tx.query(`SELECT seller_id FROM listing_imports WHERE id = $1 FOR UPDATE`, [importId]);
      const created = await insertListings(tx, owner.seller_id, valid, importId);
      const newErrors: Array<{ row_number: number }> = errors.length
        ? await tx.query(
            `INSERT INTO listing_import_errors (import_id, row_number, "column", message)
             SELECT $1, row, col, message FROM jsonb_to_recordset($2::jsonb) AS x(row int, col text, message text)
             ON CONFLICT DO NOTHING RETURNING row_number`,
            [importId, JSON.stringify(errors.map((e) => ({ row: e.row, col: e.column, message: e.message })))],
          )
        : [];
      const erroredRows = new Set(newErrors.map((e) => e.row_number)).size;
      await tx.query(
        `UPDATE listing_imports SET processed_rows = greatest(processed_rows, $2), created_count = created_count + $3,
                error_count = error_count + $4, updated_at = now() WHERE id = $1`,
        [importId, offset + records.length, created.length, erroredRows],
      );
    });
  }

  async finish(importId: string): Promise<ImportSummary> {
    await this.db.query(
      `UPDATE listing_imports SET status = 'COMPLETED', finished_at = now(), updated_at = now() WHERE id = $1 AND status = 'RUNNING'`,
      [importId],
    );
    if (this.parsed?.importId === importId) this.parsed = null;
    const i = await this.db.getRepository(ListingImport).findOneByOrFail({ id: importId });
    return { status: i.status, totalRows: i.totalRows, createdCount: i.createdCount, errorCount: i.errorCount };
  }

  private async recordsOf(importId: string): Promise<CsvRecord[]> {
    if (this.parsed?.importId !== importId) {
      const row = await this.db
        .getRepository(ListingImport)
        .createQueryBuilder('i')
        .addSelect('i.csv')
        .where('i.id = :importId', { importId })
        .getOneOrFail();
      this.parsed = { importId, records: readRecords(row.csv) };
    }
    return this.parsed.records;
  }
}
