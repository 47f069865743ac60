import type { DataSource, EntityManager } from 'typeorm';
import { newId } from '../../ids';
import { uniqueViolation } from '../db-errors';
import { conflict, invalid, notFound } from '../errors';
import type { Uploads } from '../uploads';
import { emitOrderUpdated } from './order-events';

/** Proof-of-postage images a shipment carries at most (docs/sellers-operators.md). */
export const MAX_SHIPMENT_ATTACHMENTS = 5;

/** A shipment's image, shaped like a case attachment plus the spec's `hidden`. */
export interface ShipmentAttachmentView {
  id: string;
  /** The upload the image came from. */
  imageId: string;
  url: string;
  /** Always false: proof of postage is shown to the seller and the buyer alike. */
  hidden: boolean;
  createdAt: Date;
}

const COLUMNS = `id, shipment_id AS "shipmentId", image_id AS "imageId", url, false AS hidden, created_at AS "createdAt"`;

/** The attachments of the given shipments, oldest first, in one query (for order views). */
export async function loadShipmentAttachments(
  db: DataSource | EntityManager,
  shipmentIds: string[],
): Promise<Map<string, ShipmentAttachmentView[]>> {
  const byShipment = new Map<string, ShipmentAttachmentView[]>();
  if (shipmentIds.length === 0) return byShipment;
  const rows: Array<ShipmentAttachmentView & { shipmentId: string }> = await db.query(
    `SELECT ${COLUMNS} FROM shipment_attachments WHERE shipment_id = ANY($1) ORDER BY created_at, id`,
    [shipmentIds],
  );
  for (const { shipmentId, ...attachment } of rows) byShipment.set(shipmentId, [...(byShipment.get(shipmentId) ?? []), attachment]);
  return byShipment;
}

const alreadyAttached = () => conflict('upload-already-attached', 'This upload is attached to another shipment; upload the image again.');

/**
 * Proof of postage: a seller attaches finished image uploads of theirs (the upload flow has
 * checked type and size) to a shipment of one of their orders. The order row is locked first, as
 * the order engine and tracking writes do, so the count limit holds under concurrent attaches.
 */
export class ShipmentAttachments {
  constructor(
    private readonly db: DataSource,
    private readonly uploads: Uploads,
  ) {}

  /**
   * Attaches the upload; `created` is false when it was already attached to this shipment (the
   * same attachment is answered and nothing changes). 404 for another seller's order or a
   * shipment not of it; 400 for an upload unknown, another user's or unfinished; 409 for an
   * upload attached elsewhere or a shipment at the limit. A new attachment emits ORDER_UPDATED.
   */
  async attach(
    sellerId: string,
    orderId: string,
    shipmentId: string,
    uploadId: string,
  ): Promise<{ attachment: ShipmentAttachmentView; created: boolean }> {
    try {
      return await this.db.transaction(async (tx) => {
        const [order]: Array<{ id: string; seller_id: string }> = await tx.query(
          `SELECT id, seller_id FROM orders WHERE id = $1 AND seller_id = $2 FOR UPDATE`,
          [orderId, sellerId],
        );
        if (!order) throw notFound('Order');
        const [shipment]: Array<{ attachments: number }> = await tx.query(
          `SELECT (SELECT count(*)::int FROM shipment_attachments a WHERE a.shipment_id = s.id) AS attachments
             FROM shipments s WHERE s.id = $1 AND s.order_id = $2`,
          [shipmentId, order.id],
        );
        if (!shipment) throw notFound('Shipment');
        const [upload]: Array<{ attachedTo: string | null }> = await tx.query(
          `SELECT (SELECT a.shipment_id FROM shipment_attachments a WHERE a.image_id = u.id) AS "attachedTo"
             FROM uploads u WHERE u.id = $1 AND u.owner_id = $2 AND u.status = 'READY'`,
          [uploadId, sellerId],
        );
        if (!upload) {
          throw invalid('upload-not-ready', 'The upload is unknown, not yours, or has no image bytes yet.', [
            { in: 'body', field: 'uploadId', message: '"uploadId" must be a finished upload of yours' },
          ]);
        }
        if (upload.attachedTo === shipmentId) return { attachment: await this.read(tx, uploadId), created: false };
        if (upload.attachedTo) throw alreadyAttached();
        if (shipment.attachments >= MAX_SHIPMENT_ATTACHMENTS) {
          throw conflict('attachment-limit-reached', `A shipment carries at most ${MAX_SHIPMENT_ATTACHMENTS} images.`);
        }
        await tx.query(`INSERT INTO shipment_attachments (id, shipment_id, image_id, url) VALUES ($1, $2, $3, $4)`, [
          newId(),
          shipmentId,
          uploadId,
          this.uploads.imageUrl(uploadId),
        ]);
        await tx.query(`UPDATE shipments SET updated_at = now() WHERE id = $1`, [shipmentId]);
        await tx.query(`UPDATE orders SET updated_at = now() WHERE id = $1`, [order.id]);
        await emitOrderUpdated(tx, order);
        return { attachment: await this.read(tx, uploadId), created: true };
      });
    } catch (err) {
      // The same upload attached to two orders at once: the orders' locks do not meet, the index does.
      if (uniqueViolation(err) === 'shipment_attachments_image_id_key') throw alreadyAttached();
      throw err;
    }
  }

  private async read(tx: EntityManager, uploadId: string): Promise<ShipmentAttachmentView> {
    const [row]: Array<ShipmentAttachmentView & { shipmentId?: string }> = await tx.query(
      `SELECT ${COLUMNS} FROM shipment_attachments WHERE image_id = $1`,
      [uploadId],
    );
    const { shipmentId: _shipmentId, ...attachment } = row!;
    return attachment;
  }
}
