import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-user upload quota and rate, and the collector of unattached uploads (docs/seller-listings.md,
 * "Quota and collection"): a user's uploads by age (the rate counts the last minute's, the quota
 * walks the user's), all uploads by age (the collector's cutoff), and listing attachments by
 * image (whether an upload is attached; the other attachment tables have a unique image id).
 */
export class UploadQuota1733550000000 implements MigrationInterface {
  name = 'UploadQuota1733550000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX uploads_owner_created_idx ON uploads (owner_id, created_at)`);
    await q.query(`CREATE INDEX uploads_created_idx ON uploads (created_at)`);
    await q.query(`CREATE INDEX listing_attachments_image_idx ON listing_attachments (image_id)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX listing_attachments_image_idx`);
    await q.query(`DROP INDEX uploads_created_idx`);
    await q.query(`DROP INDEX uploads_owner_created_idx`);
  }
}
