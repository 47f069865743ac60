import type { DataSource } from 'typeorm';
import type { OpenedCase } from '../cases/case-opening';
import { scheduleFundsRelease, type FundsReleaseStart } from '../money/transfers';
import type { TrackingPolicy } from '../../../workflows/contracts/shipment-tracking';
import { requestWorkflowStart, type WorkflowStart } from '../workflow-starts';
import type { ReviewWindowStart } from '../reviews/review-windows';
import { applyOrderAction, type Actor, type OrderAction, type OrderEffects } from './order-engine';

export interface OrderTimings {
  /** A case opened by a dispute escalates after this long unresolved. */
  autoEscalateSeconds: number;
  /** A shipped order counts as received after this long. */
  autoReceiptSeconds: number;
  /** A completed purchase's review window lasts this long. */
  reviewWindowSeconds: number;
  /** A received order's seller share becomes available after this long. */
  fundsHoldSeconds: number;
  /** How a new shipment's carrier is polled. */
  tracking: TrackingPolicy;
}

/**
 * The workflow starts an order action requests, each built by the module that owns its workflow
 * (src/modules/orders.ts gathers them): ids, inputs and options are decided there.
 */
export interface OrderActionStarts {
  /** A dispute opened a case. */
  case(opened: OpenedCase, autoEscalateSeconds: number): WorkflowStart;
  /** The order was cancelled: its open cases close (one request per case). */
  caseOrderCancelled(opened: OpenedCase, autoEscalateSeconds: number): WorkflowStart;
  shipmentTracking(shipmentId: string, policy: TrackingPolicy): WorkflowStart;
  orderReceipt(orderId: string, afterSeconds: number): WorkflowStart;
  /** The order was received: its seller share is released after the hold. */
  fundsRelease: FundsReleaseStart;
  /** The action completed the purchase: its review window opens. */
  reviewWindow: ReviewWindowStart;
  /** The delivery of an e-mail the action queued (a cancellation's). */
  emailDelivery(messageId: string): WorkflowStart;
}

/**
 * Runs an order action in its own transaction, together with the requests for the workflows it
 * calls for (a dispute's case, a shipment's tracking, a shipped order's receipt timer, a receipt's
 * funds release, the delivery of a cancellation's e-mails; a completed purchase's review window
 * is requested by `settlePurchase` itself):
 * they start once the action commits, and Temporal being down delays them without refusing the
 * action.
 */
export class OrderUpdates {
  constructor(
    private readonly db: DataSource,
    private readonly timings: OrderTimings,
    private readonly starts: OrderActionStarts,
  ) {}

  async apply(orderId: string, actor: Actor, action: OrderAction): Promise<OrderEffects | null> {
    return this.db.transaction(async (tx) => {
      const effects = await applyOrderAction(tx, orderId, actor, action, { ...this.timings, reviewWindow: this.starts.reviewWindow });
      if (effects?.openedCase) await requestWorkflowStart(tx, this.starts.case(effects.openedCase, this.timings.autoEscalateSeconds));
      for (const c of effects?.casesOfCancelledOrder ?? []) {
        await requestWorkflowStart(tx, this.starts.caseOrderCancelled(c, this.timings.autoEscalateSeconds));
      }
      if (effects?.shipmentId) await requestWorkflowStart(tx, this.starts.shipmentTracking(effects.shipmentId, this.timings.tracking));
      if (effects?.shippedOrderId)
        await requestWorkflowStart(tx, this.starts.orderReceipt(effects.shippedOrderId, this.timings.autoReceiptSeconds));
      if (effects?.receivedOrderId)
        await scheduleFundsRelease(tx, effects.receivedOrderId, this.timings.fundsHoldSeconds, this.starts.fundsRelease);
      for (const messageId of effects?.messageIds ?? []) await requestWorkflowStart(tx, this.starts.emailDelivery(messageId));
      return effects;
    });
  }
}
