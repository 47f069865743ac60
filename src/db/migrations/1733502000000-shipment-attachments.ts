import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Proof-of-postage images on shipments (docs/sellers-operators.md, "Proof of postage"): one row
 * per attached upload, replacing the `shipments.attachments` jsonb column that nothing ever wrote.
 * An upload attaches to one shipment only (`image_id` unique).
 */
export class ShipmentAttachments1733502000000 implements MigrationInterface {
  name = 'ShipmentAttachments1733502000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE shipment_attachments (
        id uuid PRIMARY KEY,
        shipment_id uuid NOT NULL REFERENCES shipments(id) ON DELETE CASCADE,
        image_id uuid NOT NULL UNIQUE REFERENCES uploads(id),
        url text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX shipment_attachments_shipment_idx ON shipment_attachments (shipment_id, created_at)`);
    await q.query(`ALTER TABLE shipments DROP COLUMN attachments`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE shipments ADD COLUMN attachments jsonb NOT NULL DEFAULT '[]'`);
    await q.query(`DROP TABLE shipment_attachments`);
  }
}
