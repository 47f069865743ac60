import type { DataSource } from 'typeorm';
import type { ImageStorage } from '../../integrations/images/storage';
import { UNATTACHED } from '../uploads';

/** Uploads deleted per transaction, so one pass never holds many row locks at once. */
const BATCH = 500;

/**
 * Deletes uploads nothing shows once they are older than the bound (drafts never finished,
 * images never attached, avatars replaced), and their bytes (docs/seller-listings.md, "Quota
 * and collection"). Each batch first locks candidate rows (skipping any an attachment is
 * holding), then deletes only those that are still unattached by a fresh look: every attach
 * locks its upload row (a foreign key, or `FOR SHARE` on listings), so an attachment made
 * meanwhile is either seen or waits and then finds no upload. Bytes go after the rows commit: a
 * file without a row is never served, a row without its file would be.
 */
export class UploadCollector {
  constructor(
    private readonly db: DataSource,
    private readonly storage: ImageStorage,
  ) {}

  async collect(olderThanMs: number): Promise<number> {
    const cutoff = new Date(Date.now() - olderThanMs);
    let total = 0;
    for (;;) {
      const { deleted, candidates } = await this.db.transaction(async (tx) => {
        const locked: Array<{ id: string }> = await tx.query(
          `SELECT u.id FROM uploads u WHERE u.created_at < $1 AND ${UNATTACHED} ORDER BY u.created_at LIMIT ${BATCH} FOR UPDATE OF u SKIP LOCKED`,
          [cutoff],
        );
        if (locked.length === 0) return { deleted: [] as string[], candidates: 0 };
        const [rows]: [Array<{ id: string }>, number] = await tx.query(
          `DELETE FROM uploads u WHERE u.id = ANY($1::uuid[]) AND ${UNATTACHED} RETURNING u.id`,
          [locked.map((r) => r.id)],
        );
        return { deleted: rows.map((r) => r.id), candidates: locked.length };
      });
      for (const id of deleted) await this.storage.delete(id);
      total += deleted.length;
      if (candidates < BATCH) return total;
    }
  }
}
