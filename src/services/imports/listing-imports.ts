import type { DataSource } from 'typeorm';
import { ListingImport } from '../../db/entities';
import { newId } from '../../ids';
import { invalid, notFound } from '../errors';
import { requestWorkflowStart, type WorkflowStart } from '../workflow-starts';
import { CsvFormatError, checkHeader, hasMoreDataLinesThan, readHeader } from './csv-rows';

export interface ImportView {
  id: string;
  status: ListingImport['status'];
  totalRows: number;
  processedRows: number;
  createdCount: number;
  errorCount: number;
  failure: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

const view = (i: ListingImport): ImportView => ({
  id: i.id,
  status: i.status,
  totalRows: i.totalRows,
  processedRows: i.processedRows,
  createdCount: i.createdCount,
  errorCount: i.errorCount,
  failure: i.failure,
  createdAt: i.createdAt,
  finishedAt: i.finishedAt,
});

/** The start of `import:{importId}`, the workflow that imports the file in batches (src/modules/listings.ts). */
export type ListingImportStart = (importId: string, sellerId: string) => WorkflowStart;

/**
 * Bulk listing imports from CSV. The API stores the file and, in the same transaction, requests
 * the `import:{id}` workflow, which does the work in batches (activities/imports.ts); progress,
 * counts and per-row errors are read here. While Temporal is down the import waits PENDING.
 */
export class ListingImports {
  constructor(
    private readonly db: DataSource,
    private readonly importStart: ListingImportStart,
    private readonly limits: { maxRows: number },
  ) {}

  async create(sellerId: string, csv: string): Promise<ImportView> {
    try {
      // A wrong header fails now, before anything is stored; row problems are reported per row.
      checkHeader(readHeader(csv));
    } catch (err) {
      if (err instanceof CsvFormatError) throw invalid('import-csv-invalid', err.message);
      throw err;
    }
    // Lines, not parsed records: counting them costs milliseconds where parsing a 5 MB file takes
    // seconds of the API's event loop.
    if (hasMoreDataLinesThan(csv, this.limits.maxRows))
      throw invalid(
        'import-too-many-rows',
        `The file has more than ${this.limits.maxRows} lines after the header, the most an import takes. Split it into several files.`,
      );
    const id = newId();
    await this.db.transaction(async (tx) => {
      await tx.getRepository(ListingImport).insert({ id, sellerId, csv, status: 'PENDING' });
      await requestWorkflowStart(tx, this.importStart(id, sellerId));
    });
    return this.get(sellerId, id);
  }

  async get(sellerId: string, id: string): Promise<ImportView> {
    const found = await this.db.getRepository(ListingImport).findOneBy({ id, sellerId });
    if (!found) throw notFound('Import');
    return view(found);
  }

  /** Row errors in row order, a page at a time. */
  async errors(
    sellerId: string,
    id: string,
    page: number,
    size: number,
  ): Promise<{ total: number; errors: Array<{ row: number; column: string; message: string }> }> {
    await this.get(sellerId, id);
    const [{ total }] = await this.db.query(`SELECT count(*)::int AS total FROM listing_import_errors WHERE import_id = $1`, [id]);
    const errors = await this.db.query(
      `SELECT row_number AS row, "column", message FROM listing_import_errors WHERE import_id = $1
        ORDER BY row_number, "column" LIMIT $2 OFFSET $3`,
      [id, size, (page - 1) * size],
    );
    return { total, errors };
  }
}
