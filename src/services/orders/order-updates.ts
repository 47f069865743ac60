import type { DataSource } from 'typeorm';
import type { OpenedCase } from '../cases/case-opening';
import { DomainError } from '../errors';
import { applyOrderAction, type Actor, type OrderAction, type OrderEffects } from './order-engine';

export interface OrderWorkflows {
  startCase(opened: OpenedCase): Promise<void>;
  startReceiptTimer(orderId: string): Promise<void>;
  /**
   * Runs after the commit that completed a purchase (opens its review window). It must not
   * throw: the completion has already happened and stands whatever Temporal does.
   */
  purchaseCompleted(purchaseId: string): Promise<unknown>;
}

/**
 * Runs an order action in its own transaction. The workflows an action calls for are started
 * as the transaction's last step: if Temporal refuses, the action rolls back (503, nothing
 * changed); a workflow started for a commit that then fails finds no row and does nothing.
 */
export class OrderUpdates {
  constructor(
    private readonly db: DataSource,
    private readonly workflows: OrderWorkflows,
  ) {}

  async apply(orderId: string, actor: Actor, action: OrderAction): Promise<OrderEffects | null> {
    const effects = await this.db.transaction(async (tx) => {
      const effects = await applyOrderAction(tx, orderId, actor, action);
      try {
        if (effects?.openedCase) await this.workflows.startCase(effects.openedCase);
        if (effects?.shippedOrderId) await this.workflows.startReceiptTimer(effects.shippedOrderId);
      } catch (err) {
        throw new DomainError('unavailable', 'temporarily-unavailable', 'The order action could not be scheduled; try again shortly.', {
          cause: String(err),
        });
      }
      return effects;
    });
    // After the commit, not inside it: Temporal being down must not refuse the buyer's receipt.
    if (effects?.completedPurchaseId) await this.workflows.purchaseCompleted(effects.completedPurchaseId);
    return effects;
  }
}
