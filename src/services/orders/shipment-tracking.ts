import type { DataSource, EntityManager } from 'typeorm';
import type { TrackingPolicy } from '../../../workflows/contracts/shipment-tracking';
import type { Carrier, TrackingReport, TrackingStatus } from '../../integrations/carriers';
import { newId } from '../../ids';
import { conflict, notFound } from '../errors';
import { requestWorkflowStart, type WorkflowStart } from '../workflow-starts';
import { emitOrderUpdated } from './order-events';

/**
 * What one poll found: the carrier's status, or why there is none. The workflow ends at DELIVERED
 * and SHIPMENT_GONE and polls again after any other answer.
 */
export type TrackingPoll = TrackingStatus | 'UNKNOWN_NUMBER' | 'SHIPMENT_GONE' | 'CARRIER_UNAVAILABLE';

export interface ShipmentTrackingSettings {
  autoReceiptSeconds: number;
  /** Receipt this long after the order's last shipment is delivered, when that is sooner. */
  deliveredReceiptSeconds: number;
  tracking: TrackingPolicy;
}

/** The starts a tracking change requests, built by the orders module (src/modules/orders.ts). */
export interface ShipmentTrackingStarts {
  /** Every shipment of the order is delivered: its receipt comes `deliveredReceiptSeconds` from now, if sooner. */
  orderDelivered(orderId: string, autoReceiptSeconds: number, deliveredReceiptSeconds: number): WorkflowStart;
  /** The seller corrected the tracking number: tracking polls the new one (one request per correction). */
  shipmentTrackingChanged(shipmentId: string, policy: TrackingPolicy, correctionId: string): WorkflowStart;
}

export interface TrackingCorrection {
  trackingNumber: string;
  carrier?: string;
  trackingUrl?: string;
}

interface LockedOrder {
  id: string;
  seller_id: string;
  status: string;
}

/**
 * Shipment tracking: the carrier's status and detail written onto the shipment (polled by
 * `shipment-tracking:{shipmentId}`), and the seller's tracking-number corrections. Each change
 * emits ORDER_UPDATED in its transaction; the order's row is locked first, as the order engine
 * does, so tracking writes and order actions queue instead of deadlocking.
 */
export class ShipmentTracking {
  constructor(
    private readonly db: DataSource,
    private readonly carrier: Carrier,
    private readonly settings: ShipmentTrackingSettings,
    private readonly starts: ShipmentTrackingStarts,
  ) {}

  /** Asks the carrier about the shipment's current number and records a change. */
  async poll(shipmentId: string): Promise<TrackingPoll> {
    const [shipment]: Array<{ tracking_number: string }> = await this.db.query(`SELECT tracking_number FROM shipments WHERE id = $1`, [
      shipmentId,
    ]);
    if (!shipment) return 'SHIPMENT_GONE';
    if (!this.carrier.follows(shipment.tracking_number)) {
      await this.noteUnknownNumber(shipmentId, shipment.tracking_number, 'NOT_CONNECTED');
      return 'UNKNOWN_NUMBER';
    }
    // Outside the transaction: no row stays locked while the carrier answers.
    const report = await this.carrier.track(shipment.tracking_number);
    if (!report) {
      await this.noteUnknownNumber(shipmentId, shipment.tracking_number, 'NOT_FOUND');
      return 'UNKNOWN_NUMBER';
    }
    await this.record(shipmentId, shipment.tracking_number, report);
    return report.status;
  }

  /**
   * Writes a report made for `trackingNumber`; nothing when the number was corrected meanwhile or
   * nothing changed. The order's last delivered shipment brings its receipt forward.
   */
  async record(shipmentId: string, trackingNumber: string, report: TrackingReport): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [order]: LockedOrder[] = await tx.query(
        `SELECT o.id, o.seller_id, o.status FROM orders o JOIN shipments s ON s.order_id = o.id WHERE s.id = $1 FOR UPDATE OF o`,
        [shipmentId],
      );
      if (!order) return false;
      const [changed]: [unknown[]] = await tx.query(
        `UPDATE shipments SET tracking_status = $3, tracking_status_detail = $4, tracking_source = $5, updated_at = now()
          WHERE id = $1 AND tracking_number = $2
            AND (tracking_status, tracking_status_detail, tracking_source) IS DISTINCT FROM ($3, $4, $5) RETURNING id`,
        [shipmentId, trackingNumber, report.status, report.detail, this.carrier.source],
      );
      if (changed.length === 0) return false;
      await this.orderChanged(tx, order);
      if (report.status === 'DELIVERED' && order.status === 'SHIPPED') {
        const [undelivered]: unknown[] = await tx.query(
          `SELECT 1 FROM shipments WHERE order_id = $1 AND tracking_status <> 'DELIVERED' LIMIT 1`,
          [order.id],
        );
        if (!undelivered) {
          // Kept from the first delivery: the receipt timer, once brought forward, stays so.
          await tx.query(`UPDATE orders SET delivered_at = now() WHERE id = $1 AND delivered_at IS NULL`, [order.id]);
          await requestWorkflowStart(
            tx,
            this.starts.orderDelivered(order.id, this.settings.autoReceiptSeconds, this.settings.deliveredReceiptSeconds),
          );
        }
      }
      return true;
    });
  }

  /**
   * The seller replaces a shipment's tracking number (and carrier or URL): the status starts over
   * at PRE_TRANSIT and tracking restarts for the new number. A received order's shipments are
   * final. The same number again changes nothing.
   */
  async correct(sellerId: string, orderId: string, shipmentId: string, correction: TrackingCorrection): Promise<void> {
    await this.db.transaction(async (tx) => {
      const [order]: LockedOrder[] = await tx.query(
        `SELECT id, seller_id, status FROM orders WHERE id = $1 AND seller_id = $2 FOR UPDATE`,
        [orderId, sellerId],
      );
      if (!order) throw notFound('Order');
      const [shipment]: Array<{ tracking_number: string; carrier: string; tracking_url: string }> = await tx.query(
        `SELECT tracking_number, carrier, tracking_url FROM shipments WHERE id = $1 AND order_id = $2`,
        [shipmentId, order.id],
      );
      if (!shipment) throw notFound('Shipment');
      if (order.status === 'RECEIVED') throw conflict('order-already-received', 'The order is received; its tracking is final.');
      const carrier = correction.carrier ?? shipment.carrier;
      const trackingUrl = correction.trackingUrl ?? '';
      if (shipment.tracking_number === correction.trackingNumber && shipment.carrier === carrier && shipment.tracking_url === trackingUrl)
        return;
      await tx.query(
        `UPDATE shipments SET tracking_number = $2, carrier = $3, tracking_url = $4, tracking_status = 'PRE_TRANSIT',
                tracking_status_detail = '', tracking_source = 'PENDING', updated_at = now() WHERE id = $1`,
        [shipmentId, correction.trackingNumber, carrier, trackingUrl],
      );
      await this.orderChanged(tx, order);
      await requestWorkflowStart(tx, this.starts.shipmentTrackingChanged(shipmentId, this.settings.tracking, newId()));
    });
  }

  /**
   * No carrier follows the number, or the connected one does not know it (yet): a shipment still
   * at PRE_TRANSIT says so, as `trackingSource` (NOT_CONNECTED, NOT_FOUND) and in the carrier's
   * words, so buyer and seller see why nothing moves. An explanation, not a change of the order:
   * no ORDER_UPDATED (webhooks keep meaning a status moved). A status the carrier reported before
   * is kept: a number that goes unknown later does not undo its history.
   */
  private async noteUnknownNumber(shipmentId: string, trackingNumber: string, source: 'NOT_CONNECTED' | 'NOT_FOUND'): Promise<void> {
    await this.db.query(
      `UPDATE shipments SET tracking_status_detail = $3, tracking_source = $4
        WHERE id = $1 AND tracking_number = $2 AND tracking_status = 'PRE_TRANSIT'
          AND (tracking_status_detail, tracking_source) IS DISTINCT FROM ($3, $4)`,
      [shipmentId, trackingNumber, this.carrier.unknownNumberDetail, source],
    );
  }

  private async orderChanged(tx: EntityManager, order: LockedOrder): Promise<void> {
    await tx.query(`UPDATE orders SET updated_at = now() WHERE id = $1`, [order.id]);
    await emitOrderUpdated(tx, order);
  }
}
