import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Where a shipment's tracking status comes from (`trackingSource`, docs/sellers-operators.md,
 * "Tracking"), so a shipment whose number no carrier follows says so instead of waiting silently
 * at PRE_TRANSIT. Existing shipments were all tracked by the simulator: one it did not follow
 * carries its "Not tracked" detail, one it answered for has a detail, the rest were not polled yet.
 */
export class ShipmentTrackingSource1733650000000 implements MigrationInterface {
  name = 'ShipmentTrackingSource1733650000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE shipments ADD COLUMN tracking_source text NOT NULL DEFAULT 'PENDING'
        CHECK (tracking_source IN ('PENDING', 'CARRIER', 'SIMULATOR', 'NOT_FOUND', 'NOT_CONNECTED'))`);
    await q.query(`
      UPDATE shipments SET tracking_source = CASE
        WHEN tracking_status_detail LIKE 'Not tracked:%' THEN 'NOT_CONNECTED'
        WHEN tracking_status_detail <> '' OR tracking_status <> 'PRE_TRANSIT' THEN 'SIMULATOR'
        ELSE 'PENDING' END`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE shipments DROP COLUMN tracking_source`);
  }
}
