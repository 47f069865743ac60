import type { DataSource } from 'typeorm';
import { ListingImport } from '../src/db/entities';
import { CsvFormatError, readRecords, recordToInput, rowNumberOf, type CsvRecord, type RowError } from '../src/services/imports/csv-rows';
import type { ListingInput } from '../src/services/listings/listing-input';
import { insertListings } from '../src/services/listings/listing-rows';

export interface ImportActivityDeps {
  db: DataSource;
  importBatchSize: number;
}

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

export interface ImportActivities {
  startImport(importId: string): Promise<ImportPlan>;
  importBatch(importId: string, offset: number, limit: number): Promise<void>;
  finishImport(importId: string): Promise<ImportSummary>;
}

export function createImportActivities(deps: ImportActivityDeps): ImportActivities {
  // The records of the import being processed: every batch of an import reads the same file,
  // so it is parsed once per worker process rather than once per batch.
  let parsed: { importId: string; records: CsvRecord[] } | null = null;

  async function recordsOf(importId: string): Promise<CsvRecord[]> {
    if (parsed?.importId !== importId) {
      const row = await deps.db.getRepository(ListingImport).createQueryBuilder('i').addSelect('i.csv').where('i.id = :importId', { importId }).getOneOrFail();
      parsed = { importId, records: readRecords(row.csv) };
    }
    return parsed.records;
  }

  const summary = (i: ListingImport): ImportSummary => ({ status: i.status, totalRows: i.totalRows, createdCount: i.createdCount, errorCount: i.errorCount });

  return {
    /** Counts the rows and marks the import RUNNING; a finished import is left as it is. */
    async startImport(importId) {
      const current = await deps.db.getRepository(ListingImport).findOneByOrFail({ id: importId });
      const plan = (i: ListingImport): ImportPlan => ({ status: i.status, totalRows: i.totalRows, processedRows: i.processedRows, batchSize: deps.importBatchSize });
      if (current.status === 'COMPLETED' || current.status === 'FAILED') return plan(current);
      try {
        const records = await recordsOf(importId);
        await deps.db.getRepository(ListingImport).update({ id: importId }, { status: 'RUNNING', totalRows: records.length });
      } catch (err) {
        if (!(err instanceof CsvFormatError)) throw err;
        // A file that cannot be read fails the import once; retrying would not change it.
        await deps.db.getRepository(ListingImport).update({ id: importId }, { status: 'FAILED', failure: err.message, finishedAt: new Date() });
      }
      return plan(await deps.db.getRepository(ListingImport).findOneByOrFail({ id: importId }));
    },

    /**
     * Rows [offset, offset + limit) in one transaction: valid rows become listings (with their
     * LISTING_CREATED events), invalid rows their errors. Idempotent by (import, row): a
     * retried or re-run batch inserts nothing twice and counts nothing twice.
     */
    async importBatch(importId, offset, limit) {
      const records = (await recordsOf(importId)).slice(offset, offset + limit);
      const valid: Array<{ input: ListingInput; importRow: number }> = [];
      const errors: RowError[] = [];
      records.forEach((record, i) => {
        const row = rowNumberOf(offset + i);
        const result = recordToInput(record, row);
        if (result.errors) errors.push(...result.errors);
        else valid.push({ input: result.input, importRow: row });
      });
      await deps.db.transaction(async (tx) => {
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
    },

    async finishImport(importId) {
      await deps.db.query(`UPDATE listing_imports SET status = 'COMPLETED', finished_at = now(), updated_at = now() WHERE id = $1 AND status = 'RUNNING'`, [importId]);
      if (parsed?.importId === importId) parsed = null;
      return summary(await deps.db.getRepository(ListingImport).findOneByOrFail({ id: importId }));
    },
  };
}
